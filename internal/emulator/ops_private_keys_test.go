package emulator

import (
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/testclock"
)

func keyParams(name, curve string, formats ...string) client.PrivateKeyParams {
	return client.PrivateKeyParams{PrivateKeyName: name, Curve: curve, AddressFormats: formats}
}

func createKeys(t *testing.T, e *testEmulator, keys ...client.PrivateKeyParams) []client.CreatedPrivateKey {
	t.Helper()
	got, err := e.client.CreatePrivateKeys(t.Context(), client.CreatePrivateKeysParams{PrivateKeys: keys})
	if err != nil {
		t.Fatalf("create_private_keys: %v", err)
	}
	return got.Result.PrivateKeys
}

func listKeys(t *testing.T, e *testEmulator) []client.PrivateKey {
	t.Helper()
	got, err := e.client.ListPrivateKeys(t.Context(), client.ListPrivateKeysRequest{})
	if err != nil {
		t.Fatalf("list_private_keys: %v", err)
	}
	return got.PrivateKeys
}

func TestCreateAndListPrivateKeys(t *testing.T) {
	clock := testclock.Ticking(time.Now(), time.Millisecond)
	e := newTestEmulator(t, func(o *Options) { o.Now = clock.Now })
	var created []client.CreatedPrivateKey
	for _, p := range []client.PrivateKeyParams{
		keyParams("k1", curveSecp256k1, addressEthereum, addressCompressed, addressUncompressed),
		keyParams("k2", curveP256, addressCompressed, addressUncompressed),
		keyParams("k3", curveEd25519, addressSolana, addressCompressed),
		keyParams("k4", curveSecp256k1),
		keyParams("k5", curveEd25519, addressSolana),
	} {
		created = append(created, createKeys(t, e, p)...) // one activity each: distinct createdAt
	}
	listed := listKeys(t, e)
	if len(listed) != len(created) {
		t.Fatalf("listed %d keys, created %d", len(listed), len(created))
	}
	for i, k := range listed { // creation order, whatever the random ids
		c := created[i]
		if k.PrivateKeyID != c.PrivateKeyID || len(k.Addresses) != len(c.Addresses) || k.PrivateKeyName != "k"+string(rune('1'+i)) {
			t.Fatalf("listed[%d] = %+v, created %+v", i, k, c)
		}
		for j, a := range c.Addresses {
			if k.Addresses[j] != a || a.Address == "" {
				t.Errorf("%s address %d: listed %+v, created %+v", k.PrivateKeyName, j, k.Addresses[j], a)
			}
		}
		if k.Exported || k.Imported || k.PrivateKeyTags == nil || len(k.PrivateKeyTags) != 0 || k.CreatedAt.IsZero() {
			t.Errorf("listed %+v", k)
		}
	}
	if pub := listed[0].PublicKey; len(pub) != 66 || listed[0].Addresses[1].Address != pub || !strings.HasPrefix(listed[0].Addresses[0].Address, "0x") {
		t.Errorf("secp256k1 key %+v", listed[0])
	}
	if listed[2].Addresses[1].Address != listed[2].PublicKey || listed[2].Addresses[0].Address != base58FromHex(t, listed[2].PublicKey) {
		t.Errorf("ed25519 key %+v", listed[2])
	}
	// The wire names are v1PrivateKey's, lists are [] rather than null.
	raw := e.post(t, "/public/v1/query/list_private_keys", []byte(`{"organizationId":"org-test"}`), e.key)
	for _, want := range []string{`"privateKeyTags":[]`, `"addresses":[]`, `"exported":false`, `"imported":false`, `"publicKey":"`, `"curve":"CURVE_P256"`} {
		if !strings.Contains(string(raw.Raw), want) {
			t.Errorf("list_private_keys answer lacks %s: %s", want, raw.Raw)
		}
	}
}

func base58FromHex(t *testing.T, h string) string {
	t.Helper()
	b, err := hex.DecodeString(h)
	if err != nil {
		t.Fatal(err)
	}
	return base58Encode(b)
}

func TestListPrivateKeysTieBreaksByID(t *testing.T) {
	fixed := time.Now()
	e := newTestEmulator(t, func(o *Options) { o.Now = func() time.Time { return fixed } })
	createKeys(t, e, keyParams("a", curveP256), keyParams("b", curveP256), keyParams("c", curveP256), keyParams("d", curveP256))
	listed := listKeys(t, e)
	for i := 1; i < len(listed); i++ {
		if listed[i-1].PrivateKeyID >= listed[i].PrivateKeyID {
			t.Fatalf("same createdAt, ids not ascending: %s then %s", listed[i-1].PrivateKeyID, listed[i].PrivateKeyID)
		}
	}
}

func TestCreatePrivateKeysValidation(t *testing.T) {
	e := newTestEmulator(t)
	const typ = "ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2"
	key := func(objects string) string { return `{"privateKeys":[` + objects + `]}` }
	one := func(fields string) string { return key("{" + fields + "}") }
	ok := `"privateKeyName":"n","curve":"CURVE_SECP256K1","privateKeyTags":[],"addressFormats":[]`
	for _, tt := range []struct{ name, params, want string }{
		{"missing privateKeys", `{}`, "missing required field parameters.privateKeys"},
		{"empty list", `{"privateKeys":[]}`, "at least one key"},
		{"missing curve", key(`{"privateKeyName":"n","privateKeyTags":[],"addressFormats":[]}`), "missing required field parameters.privateKeys[0].curve"},
		{"missing tags", key(`{"privateKeyName":"n","curve":"CURVE_P256","addressFormats":[]}`), "parameters.privateKeys[0].privateKeyTags"},
		{"missing formats", key(`{"privateKeyName":"n","curve":"CURVE_P256","privateKeyTags":[]}`), "parameters.privateKeys[0].addressFormats"},
		{"bad curve", one(strings.Replace(ok, "CURVE_SECP256K1", "CURVE_X", 1)), `field parameters.privateKeys[0].curve: unknown value "CURVE_X"`},
		{"empty name", one(strings.Replace(ok, `"n"`, `" "`, 1)), "parameters.privateKeys[0].privateKeyName must not be empty"},
		{"duplicate names", key("{" + ok + "},{" + ok + "}"), "privateKeys[1].privateKeyName"},
		{"unknown field", key("{" + ok + `,"exportable":true}`), `unknown field "exportable"`},
		{"wrong type", one(strings.Replace(ok, `"privateKeyTags":[]`, `"privateKeyTags":"t"`, 1)), "wrong JSON type"},
		{"format off curve", one(strings.Replace(ok, `"addressFormats":[]`, `"addressFormats":["ADDRESS_FORMAT_SOLANA"]`, 1)),
			"parameters.privateKeys[0].addressFormats[0]: the emulator does not derive"},
		{"duplicate format", one(strings.Replace(ok, `"addressFormats":[]`, `"addressFormats":["ADDRESS_FORMAT_ETHEREUM","ADDRESS_FORMAT_ETHEREUM"]`, 1)),
			"addressFormats[1]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, e.post(t, "/public/v1/submit/create_private_keys", submitBody(typ, tt.params), e.key), http.StatusBadRequest, tt.want)
		})
	}
	if n := len(listKeys(t, e)); n != 0 {
		t.Fatalf("%d keys after refused requests", n)
	}
}

func TestCreatePrivateKeysFailures(t *testing.T) {
	e := newTestEmulator(t)
	createKeys(t, e, keyParams("taken", curveSecp256k1))
	_, err := e.client.CreatePrivateKeys(t.Context(), client.CreatePrivateKeysParams{PrivateKeys: []client.PrivateKeyParams{
		keyParams("fresh", curveP256), keyParams("taken", curveP256)}})
	wantFailedActivity(t, err, 6, `a private key named "taken" already exists`)
	p := keyParams("tagged", curveP256)
	p.PrivateKeyTags = []string{"no-such-tag"}
	_, err = e.client.CreatePrivateKeys(t.Context(), client.CreatePrivateKeysParams{PrivateKeys: []client.PrivateKeyParams{p}})
	wantFailedActivity(t, err, client.CodeNotFound, "private key tag no-such-tag not found")
	if n := len(listKeys(t, e)); n != 1 {
		t.Fatalf("%d keys, want 1: a failed activity must create nothing", n)
	}
}

package emulator

import (
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// genuineStamp is the test's own check that header holds one JSON object
// with an ECDSA P-256 signature of exactly body by the key it names. It is
// more lenient than the emulator (unknown fields, any scheme): any stamp
// the emulator may accept must pass it.
func genuineStamp(header string, body []byte) bool {
	raw, err := base64.RawURLEncoding.DecodeString(header)
	if err != nil {
		return false
	}
	var st client.Stamp
	if err := json.Unmarshal(raw, &st); err != nil { // one JSON value, nothing after it
		return false
	}
	pub, err := client.ParsePublicKey(strings.ToLower(st.PublicKey))
	if err != nil {
		return false
	}
	sig, err := hex.DecodeString(st.Signature)
	if err != nil {
		return false
	}
	digest := sha256.Sum256(body)
	return ecdsa.VerifyASN1(pub, digest[:], sig)
}

// FuzzStampVerification sends arbitrary X-Stamp headers, or a genuine
// stamp of another body, with arbitrary bodies. It asserts: no panic; a
// documented status with a well-formed error body; 401 whenever the stamp
// is not a genuine signature of the exact body by the key it names.
func FuzzStampVerification(f *testing.F) {
	e := newFuzzEmulator(f)
	routes := fuzzRoutes()
	whoamiAt := slices.Index(routes, fuzzRoute{routeQuery, "whoami"})
	renameAt := slices.Index(routes, fuzzRoute{routeSubmit, "update_organization_name"})
	if whoamiAt < 0 || renameAt < 0 {
		f.Fatal("whoami or update_organization_name is not registered")
	}
	fixedBody := []byte(`{"organizationId":"org-test"}`)
	fixedStamp, err := e.key.Stamp(fixedBody)
	if err != nil {
		f.Fatal(err)
	}
	stampJSON := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	signatureOf := func(stamp string) string {
		raw, _ := base64.RawURLEncoding.DecodeString(stamp)
		var st client.Stamp
		_ = json.Unmarshal(raw, &st)
		return st.Signature
	}
	fixedSig := signatureOf(fixedStamp)
	rename := fuzzEnvelope("ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME", testOrg, fuzzNow, `{"organizationName":"Stamped"}`)
	renameStamp, err := e.key.Stamp(rename)
	if err != nil {
		f.Fatal(err)
	}
	renameSig := signatureOf(renameStamp)
	for _, s := range []struct {
		sel    uint16
		fixed  bool
		header string
		body   []byte
	}{
		{uint16(whoamiAt), true, "", fixedBody},              // genuine
		{uint16(whoamiAt), true, "", append(fixedBody, ' ')}, // one more byte
		{uint16(whoamiAt), true, "", []byte(`{"organizationId":"org-tesT"}`)},
		{uint16(renameAt), true, "", rename}, // another body
		{uint16(renameAt), false, stampJSON(`{"publicKey":"` + fuzzRootPublicKey + `","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature":"` + renameSig + `"}`), rename},
		{uint16(whoamiAt), false, "", fixedBody},               // no stamp
		{uint16(whoamiAt), false, fixedStamp + "=", fixedBody}, // padded
		{uint16(whoamiAt), false, fixedStamp[:len(fixedStamp)-2], fixedBody},
		{uint16(whoamiAt), false, "not base64!", fixedBody},
		{uint16(whoamiAt), false, stampJSON(`null`), fixedBody},
		{uint16(whoamiAt), false, stampJSON(`[]`), fixedBody},
		{uint16(whoamiAt), false, stampJSON(`{}`), fixedBody},
		{uint16(whoamiAt), false, stampJSON(`{"publicKey":"` + strings.ToUpper(fuzzRootPublicKey) + `","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature":"` + fixedSig + `"}`), fixedBody},
		{uint16(whoamiAt), false, stampJSON(`{"publicKey":"` + fuzzRootPublicKey + `","scheme":"SIGNATURE_SCHEME_TK_API_ED25519","signature":"` + fixedSig + `"}`), fixedBody},
		{uint16(whoamiAt), false, stampJSON(`{"publicKey":"` + fuzzRootPublicKey + `","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature":"` + fixedSig + `","extra":1}`), fixedBody},
		{uint16(whoamiAt), false, stampJSON(`{"publicKey":"` + fuzzRootPublicKey + `","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature":"` + fixedSig + `"} trailing`), fixedBody},
		{uint16(whoamiAt), false, stampJSON(`{"publicKey":"` + fuzzRootPublicKey + `","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature":"` + strings.ToUpper(fixedSig) + `"}`), fixedBody},
		{uint16(whoamiAt), false, stampJSON(`{"publicKey":"` + fuzzRootPublicKey + `","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature":"` + fixedSig[:len(fixedSig)-2] + `"}`), fixedBody},
		{uint16(whoamiAt), false, stampJSON(`{"publicKey":"` + fuzzRootPublicKey + `","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature":""}`), fixedBody},
		{uint16(whoamiAt), false, stampJSON(`{"publicKey":"` + fuzzRootPublicKey + `","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature":"3006020101020101"}`), fixedBody},
		{uint16(whoamiAt), false, stampJSON(`{"publicKey":"02` + strings.Repeat("0", 64) + `","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature":"` + fixedSig + `"}`), fixedBody},
		{uint16(whoamiAt), false, stampJSON(`{"publicKey":7,"scheme":null,"signature":[]}`), fixedBody},
		{uint16(whoamiAt), false, stampJSON(strings.Repeat(`{"a":`, 3000)), fixedBody},
	} {
		f.Add(s.sel, s.fixed, s.header, s.body)
	}
	f.Fuzz(func(t *testing.T, sel uint16, useFixedStamp bool, header string, body []byte) {
		r := routes[int(sel)%len(routes)]
		if useFixedStamp {
			header = fixedStamp
		}
		e.reset(t)
		rec := e.serve(r.path(), header, body)
		checkAnswer(t, rec, r.path(), body)
		if rec.Code != http.StatusUnauthorized && len(body) <= fuzzMaxBody && !genuineStamp(header, body) {
			t.Fatalf("%s: HTTP %d, not 401, for stamp %q over body %q: %s", r.path(), rec.Code, header, body, rec.Body)
		}
	})
}

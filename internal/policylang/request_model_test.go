package policylang

import (
	"slices"
	"strings"
	"testing"
)

// requestTableBase is the least catalogue the request table's lines can
// name: two keywords, a param with values, two activity types.
const requestTableBase = `keyword condition activity Activity
keyword condition eth.tx EthereumTransaction
keyword condition wallet Wallet
keyword condition private_key PrivateKey
field Activity.type string
field Activity.params ActivityParams
field ActivityParams.type string
field EthereumTransaction.value int
field Wallet.id string
field PrivateKey.id string
values ActivityParams.type TRANSACTION_TYPE_ETHEREUM TRANSACTION_TYPE_SOLANA
activity ACTIVITY_TYPE_SIGN_TRANSACTION_V2 SIGN_TRANSACTION PRIVATE_KEY SIGN
activity ACTIVITY_TYPE_EXPORT_WALLET EXPORT_WALLET WALLET EXPORT
`

// The loader refuses a malformed or unknown line and says which line (the
// base is 13 lines, so the tested line is 14 or, after one good line, 15).
func TestRequestTableRefusesBadLines(t *testing.T) {
	for _, tc := range []struct{ lines, want string }{
		{"carries ACTIVITY_TYPE_SIGN_TRANSACTION_V2 eth.tx", "line 14: ACTIVITY_TYPE_SIGN_TRANSACTION_V2: carries needs a keyword and always or sometimes"},
		{"carries ACTIVITY_TYPE_SIGN_TRANSACTION_V2 eth.tx often", `line 14: ACTIVITY_TYPE_SIGN_TRANSACTION_V2: carries eth.tx: "often" is neither`},
		{"carries ACTIVITY_TYPE_SIGN_TRANSACTION_V2 eth.txx always", "line 14: ACTIVITY_TYPE_SIGN_TRANSACTION_V2: carries: eth.txx is not a condition keyword"},
		{"carries ACTIVITY_TYPE_SIGN_TRANSACTION_V2 activity always", "activity is not a condition keyword a request carries"},
		{"carries ACTIVITY_TYPE_SIGN_TX eth.tx always", "line 14: unknown activity type ACTIVITY_TYPE_SIGN_TX"},
		{"carries signing eth.tx always", "line 14: signing is neither an activity type nor a family defined above"},
		{"family signing ACTIVITY_TYPE_SIGN_TX", "line 14: family signing: unknown activity type ACTIVITY_TYPE_SIGN_TX"},
		{"family ACTIVITY_TYPE_EXPORT_WALLET ACTIVITY_TYPE_EXPORT_WALLET", "line 14: family ACTIVITY_TYPE_EXPORT_WALLET: a family's name is not"},
		{"params ACTIVITY_TYPE_SIGN_TRANSACTION_V2 kind", "line 14: ACTIVITY_TYPE_SIGN_TRANSACTION_V2: params: ActivityParams has no field kind"},
		{"params ACTIVITY_TYPE_SIGN_TRANSACTION_V2 type\nparams ACTIVITY_TYPE_SIGN_TRANSACTION_V2 type", "line 15: ACTIVITY_TYPE_SIGN_TRANSACTION_V2: params given twice"},
		{"carries ACTIVITY_TYPE_SIGN_TRANSACTION_V2 eth.tx always when type TRANSACTION_TYPE_ETHEREUM", "line 14: ACTIVITY_TYPE_SIGN_TRANSACTION_V2: carries eth.tx when activity.params.type, which it does not expose"},
		{"params ACTIVITY_TYPE_SIGN_TRANSACTION_V2 type\ncarries ACTIVITY_TYPE_SIGN_TRANSACTION_V2 eth.tx always when type TRANSACTION_TYPE_ETH", "line 15: ACTIVITY_TYPE_SIGN_TRANSACTION_V2: carries eth.tx when activity.params.type is TRANSACTION_TYPE_ETH, which is none"},
		{"carries ACTIVITY_TYPE_SIGN_TRANSACTION_V2 eth.tx always if type", "after always comes nothing, or when <param> and its values"},
		{"carries ACTIVITY_TYPE_SIGN_TRANSACTION_V2 wallet sometimes\ncarries ACTIVITY_TYPE_SIGN_TRANSACTION_V2 wallet always", "line 15: ACTIVITY_TYPE_SIGN_TRANSACTION_V2: carries wallet given twice"},
		{"carries ACTIVITY_TYPE_SIGN_TRANSACTION_V2 wallet sometimes\natmostone ACTIVITY_TYPE_SIGN_TRANSACTION_V2 wallet private_key", "line 15: ACTIVITY_TYPE_SIGN_TRANSACTION_V2: atmostone: private_key is never carried"},
		{"atleastone ACTIVITY_TYPE_SIGN_TRANSACTION_V2 wallet", "line 14: ACTIVITY_TYPE_SIGN_TRANSACTION_V2: atleastone needs at least two keywords"},
		{"carries ACTIVITY_TYPE_SIGN_TRANSACTION_V2 wallet sometimes\ntogether ACTIVITY_TYPE_SIGN_TRANSACTION_V2 wallet walet", "line 15: ACTIVITY_TYPE_SIGN_TRANSACTION_V2: together: walet is not a condition keyword"},
		{"params ACTIVITY_TYPE_SIGN_TRANSACTION_V2 inferred", "line 14: params needs a scope and at least one more word"},
	} {
		_, err := loadCatalogue(requestTableBase + tc.lines + "\n")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want an error containing %q", tc.lines, err, tc.want)
		}
	}
}

// A small table read back: families, inferences (by the line or by the
// family member), conditions and groups.
func TestRequestTableReadsLines(t *testing.T) {
	c, err := loadCatalogue(requestTableBase + `family sign ACTIVITY_TYPE_SIGN_TRANSACTION_V2 inferred
params ACTIVITY_TYPE_SIGN_TRANSACTION_V2 type
carries sign wallet sometimes
carries sign private_key sometimes
carries ACTIVITY_TYPE_SIGN_TRANSACTION_V2 eth.tx always when type TRANSACTION_TYPE_ETHEREUM
atmostone sign wallet private_key
carries ACTIVITY_TYPE_EXPORT_WALLET wallet always
`)
	if err != nil {
		t.Fatal(err)
	}
	sign := c.requests["ACTIVITY_TYPE_SIGN_TRANSACTION_V2"]
	if r := sign.Keywords["wallet"]; r.Presence != Sometimes || !r.Inferred || r.When != nil {
		t.Errorf("wallet = %+v, want sometimes, inferred through the family", r)
	}
	if r := sign.Keywords["eth.tx"]; r.Presence != Always || r.Inferred || r.When == nil || r.When.Param != "type" ||
		!slices.Equal(r.When.Values, []string{"TRANSACTION_TYPE_ETHEREUM"}) {
		t.Errorf("eth.tx = %+v, want always when type is ETHEREUM, stated", r)
	}
	if len(sign.AtMostOne) != 1 || !sign.AtMostOne[0].Inferred || !slices.Equal(sign.AtMostOne[0].Keywords, []string{"wallet", "private_key"}) {
		t.Errorf("AtMostOne = %+v", sign.AtMostOne)
	}
	if !slices.Equal(sign.Params, []string{"type"}) || sign.ParamsInferred {
		t.Errorf("Params = %v (inferred %v)", sign.Params, sign.ParamsInferred)
	}
	if exp := c.requests["ACTIVITY_TYPE_EXPORT_WALLET"]; exp.Keywords["wallet"].Presence != Always || exp.Params != nil {
		t.Errorf("EXPORT_WALLET = %+v", exp)
	}
}

// The shipped table, read through the API: what several types carry.
func TestLookupRequestModel(t *testing.T) {
	type rule struct {
		keyword  string
		presence Presence
		when     string // "param=v1|v2", or ""
		inferred bool
	}
	for _, tc := range []struct {
		typ        string
		rules      []rule
		atMostOne  [][]string
		atLeastOne [][]string
		params     []string
	}{
		{typ: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", rules: []rule{
			{"eth.tx", Always, "type=TRANSACTION_TYPE_ETHEREUM", true}, {"solana.tx", Always, "type=TRANSACTION_TYPE_SOLANA", true},
			{"bitcoin.tx", Always, "type=TRANSACTION_TYPE_BITCOIN", true}, {"wallet", Sometimes, "", false},
			{"private_key", Sometimes, "", false}, {"wallet_account", Sometimes, "", false}, {"eth.eip_712", Never, "", false},
			{"secret", Never, "", false},
		}, atMostOne: [][]string{{"wallet", "private_key"}, {"wallet_account", "private_key"}},
			atLeastOne: [][]string{{"wallet", "private_key"}}, params: []string{"type"}},
		{typ: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", rules: []rule{
			{"eth.eip_712", Always, "encoding=PAYLOAD_ENCODING_EIP712", true},
			{"eth.eip_7702_authorization", Always, "encoding=PAYLOAD_ENCODING_EIP7702_AUTHORIZATION", true}, {"eth.tx", Never, "", false},
		}, atMostOne: [][]string{{"wallet", "private_key"}, {"wallet_account", "private_key"}},
			atLeastOne: [][]string{{"wallet", "private_key"}}, params: []string{"encoding", "hash_function"}},
		{typ: "ACTIVITY_TYPE_SIGN_TRANSACTION", rules: []rule{{"eth.tx", Sometimes, "", true}, {"wallet", Sometimes, "", true}},
			atMostOne:  [][]string{{"wallet", "private_key"}, {"wallet_account", "private_key"}, {"eth.tx", "solana.tx", "tron.tx", "bitcoin.tx", "tempo.tx"}},
			atLeastOne: [][]string{{"wallet", "private_key"}}},
		{typ: "ACTIVITY_TYPE_EXPORT_WALLET", rules: []rule{{"wallet", Always, "", false}, {"private_key", Never, "", false},
			{"eth.tx", Never, "", false}}, params: []string{"target_public_key"}},
		{typ: "ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT", rules: []rule{{"wallet_account", Always, "", false}, {"wallet", Always, "", true}},
			params: []string{"target_public_key"}},
		{typ: "ACTIVITY_TYPE_EXPORT_PRIVATE_KEY", rules: []rule{{"private_key", Always, "", false}, {"wallet", Never, "", false}},
			params: []string{"target_public_key"}},
		{typ: "ACTIVITY_TYPE_EXPORT_SECRETS", rules: []rule{{"secret", Always, "", false}}},
		{typ: "ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2", rules: []rule{{"eth.tx", Always, "", true}, {"solana.tx", Never, "", false}},
			atMostOne: [][]string{{"wallet", "private_key"}, {"wallet_account", "private_key"}}, atLeastOne: [][]string{{"wallet", "private_key"}}},
		{typ: "ACTIVITY_TYPE_DELETE_API_KEYS", params: []string{"api_key_ids", "user_id"}},
		{typ: "ACTIVITY_TYPE_CREATE_POLICIES", rules: []rule{{"wallet", Never, "", false}, {"eth.tx", Never, "", false}}},
		{typ: "ACTIVITY_TYPE_NOT_CATALOGUED", rules: []rule{{"private_key", Never, "", false}}},
	} {
		m := LookupRequestModel(tc.typ)
		if m.Type != tc.typ {
			t.Errorf("%s: Type = %s", tc.typ, m.Type)
		}
		for _, r := range tc.rules {
			got := m.Rule(r.keyword)
			when := ""
			if got.When != nil {
				when = got.When.Param + "=" + strings.Join(got.When.Values, "|")
			}
			if got.Presence != r.presence || when != r.when || got.Inferred != r.inferred {
				t.Errorf("%s %s: got %v when %q inferred %v, want %v when %q inferred %v", tc.typ, r.keyword, got.Presence, when,
					got.Inferred, r.presence, r.when, r.inferred)
			}
		}
		groups := func(gs []KeywordGroup) [][]string {
			var out [][]string
			for _, g := range gs {
				out = append(out, g.Keywords)
			}
			return out
		}
		if got := groups(m.AtMostOne); !slices.EqualFunc(got, tc.atMostOne, slices.Equal) {
			t.Errorf("%s: AtMostOne = %v, want %v", tc.typ, got, tc.atMostOne)
		}
		if got := groups(m.AtLeastOne); !slices.EqualFunc(got, tc.atLeastOne, slices.Equal) {
			t.Errorf("%s: AtLeastOne = %v, want %v", tc.typ, got, tc.atLeastOne)
		}
		if !slices.Equal(m.Params, tc.params) {
			t.Errorf("%s: Params = %v, want %v", tc.typ, m.Params, tc.params)
		}
	}
}

// Check refuses exactly the requests that cannot exist; Missing lists what
// an incomplete one lacks.
func TestRequestModelCheckAndMissing(t *testing.T) {
	eth := map[string]any{"type": "TRANSACTION_TYPE_ETHEREUM"}
	sol := map[string]any{"type": "TRANSACTION_TYPE_SOLANA"}
	for _, tc := range []struct {
		typ     string
		carried []string
		params  map[string]any
		err     string // "" for none
		missing []string
	}{
		{"ACTIVITY_TYPE_SIGN_TRANSACTION_V2", []string{"eth.tx", "private_key"}, eth, "", nil},
		{"ACTIVITY_TYPE_SIGN_TRANSACTION_V2", []string{"eth.tx", "private_key"}, sol,
			`carries eth.tx only when activity.params.type is TRANSACTION_TYPE_ETHEREUM, and this request's activity.params.type is "TRANSACTION_TYPE_SOLANA"`,
			[]string{"solana.tx"}},
		{"ACTIVITY_TYPE_SIGN_TRANSACTION_V2", []string{"eth.tx", "private_key"}, nil, "", []string{"activity.params.type"}},
		{"ACTIVITY_TYPE_SIGN_TRANSACTION_V2", []string{"wallet", "private_key", "solana.tx"}, sol,
			"carries at most one of wallet, private_key, and this request carries wallet and private_key", nil},
		{"ACTIVITY_TYPE_SIGN_TRANSACTION_V2", []string{"wallet_account"}, eth, "",
			[]string{"eth.tx", "one of wallet, private_key", "wallet (with wallet_account)"}},
		{"ACTIVITY_TYPE_SIGN_TRANSACTION_V2", []string{"private_key"}, map[string]any{"type": "TRANSACTION_TYPE_ETHEREUM", "encoding": "x"},
			"exposes no activity.params.encoding", nil},
		{"ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", []string{"private_key", "eth.eip_712"}, map[string]any{"encoding": "PAYLOAD_ENCODING_HEXADECIMAL"},
			"carries eth.eip_712 only when activity.params.encoding is PAYLOAD_ENCODING_EIP712", nil},
		{"ACTIVITY_TYPE_EXPORT_WALLET", []string{"eth.tx", "wallet"}, nil, "by the catalogue, ACTIVITY_TYPE_EXPORT_WALLET never carries eth.tx",
			[]string{"activity.params.target_public_key"}},
		{"ACTIVITY_TYPE_EXPORT_WALLET", []string{"private_key"}, nil, "ACTIVITY_TYPE_EXPORT_WALLET never carries private_key (it carries wallet always; activity.params target_public_key)",
			nil},
		{"ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT", nil, map[string]any{"target_public_key": "04ab"}, "", []string{"wallet", "wallet_account"}},
		{"ACTIVITY_TYPE_CREATE_POLICIES", []string{"wallet"}, nil, "never carries wallet (it carries no keyword but activity; no activity.params)", nil},
		{"ACTIVITY_TYPE_CREATE_POLICIES", nil, nil, "", nil},
	} {
		m := LookupRequestModel(tc.typ)
		err := m.Check(tc.carried, tc.params)
		if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s %v %v: Check = %v, want %q", tc.typ, tc.carried, tc.params, err, tc.err)
		}
		if err == nil || tc.missing != nil {
			if got := m.Missing(tc.carried, tc.params); !slices.Equal(got, tc.missing) {
				t.Errorf("%s %v %v: Missing = %q, want %q", tc.typ, tc.carried, tc.params, got, tc.missing)
			}
		}
	}
}

// DocumentedValues gives a field's documented values, and nothing for a
// field without any.
func TestDocumentedValues(t *testing.T) {
	if got := DocumentedValues("Credential.type"); len(got) != 10 || got[0] != "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR" {
		t.Errorf("Credential.type = %v", got)
	}
	if got := DocumentedValues("Credential.id"); got != nil {
		t.Errorf("Credential.id = %v, want none", got)
	}
}

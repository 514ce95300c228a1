package policyset

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

// A request is held to the catalogue's request table: what it carries
// through PrivateKey and SetKeyword, and its params.
func TestRequestConforms(t *testing.T) {
	tx := map[string]any{"to": "0x1111111111111111111111111111111111111111", "value": "1"}
	for _, tc := range []struct {
		name    string
		req     func(t *testing.T) Request
		carried []string
		keyword string // the RequestModelError's Keyword, "" when it conforms
		param   string // its Param
		missing []string
	}{
		{"an Ethereum signing request", func(t *testing.T) Request {
			r := Request{Type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", Params: map[string]any{"type": "TRANSACTION_TYPE_ETHEREUM"},
				PrivateKey: &PrivateKey{ID: "k"}}
			mustSet(t, &r, "eth.tx", tx)
			return r
		}, []string{"eth.tx", "private_key"}, "", "", nil},
		{"eth.tx on a Solana signing request", func(t *testing.T) Request {
			r := Request{Type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", Params: map[string]any{"type": "TRANSACTION_TYPE_SOLANA"},
				PrivateKey: &PrivateKey{ID: "k"}}
			mustSet(t, &r, "eth.tx", tx)
			return r
		}, []string{"eth.tx", "private_key"}, "eth.tx", "", nil},
		{"wallet beside private_key", func(t *testing.T) Request {
			r := Request{Type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", PrivateKey: &PrivateKey{ID: "k"}}
			mustSet(t, &r, "wallet", map[string]any{"id": "w"})
			return r
		}, []string{"private_key", "wallet"}, "private_key", "", nil},
		{"private_key on a wallet export", func(t *testing.T) Request {
			return Request{Type: "ACTIVITY_TYPE_EXPORT_WALLET", PrivateKey: &PrivateKey{ID: "k"}}
		}, []string{"private_key"}, "private_key", "", nil},
		{"a param the type does not expose", func(t *testing.T) Request {
			return Request{Type: "ACTIVITY_TYPE_CREATE_POLICIES", Params: map[string]any{"encoding": "PAYLOAD_ENCODING_HEXADECIMAL"}}
		}, nil, "", "encoding", nil},
		{"a wallet export without its wallet is incomplete, not impossible", func(t *testing.T) Request {
			return Request{Type: "ACTIVITY_TYPE_EXPORT_WALLET"}
		}, nil, "", "", []string{"wallet", "activity.params.target_public_key"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.req(t)
			if got := r.CarriedKeywords(); !slices.Equal(got, tc.carried) {
				t.Errorf("CarriedKeywords = %v, want %v", got, tc.carried)
			}
			err := r.Conforms()
			var me *policylang.RequestModelError
			switch {
			case tc.keyword == "" && tc.param == "":
				if err != nil {
					t.Fatalf("Conforms = %v, want nil", err)
				}
			case !errors.As(err, &me) || me.Keyword != tc.keyword || me.Param != tc.param ||
				!strings.HasPrefix(me.Message, "by the catalogue, "+r.Type):
				t.Fatalf("Conforms = %#v, want a RequestModelError about keyword %q / param %q", err, tc.keyword, tc.param)
			}
			if err == nil {
				if got := r.Missing(); !slices.Equal(got, tc.missing) {
					t.Errorf("Missing = %q, want %q", got, tc.missing)
				}
			}
		})
	}
}

func mustSet(t *testing.T, r *Request, keyword string, v any) {
	t.Helper()
	if err := r.SetKeyword(keyword, v); err != nil {
		t.Fatal(err)
	}
}

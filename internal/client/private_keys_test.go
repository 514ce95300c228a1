package client

import (
	"net/http"
	"reflect"
	"testing"
)

// TestListPrivateKeys checks the path, the body and that every field of
// v1PrivateKey is read under its exact JSON name.
func TestListPrivateKeys(t *testing.T) {
	const answer = `{"privateKeys":[{"privateKeyId":"pk-1","publicKey":"02ab","privateKeyName":"hot",` +
		`"curve":"CURVE_SECP256K1","addresses":[{"format":"ADDRESS_FORMAT_ETHEREUM","address":"0xAbC"}],` +
		`"privateKeyTags":["t-1"],"createdAt":{"seconds":"1795300000","nanos":"0"},"updatedAt":{"seconds":"1795300001","nanos":"5"},` +
		`"exported":true,"imported":true}]}`
	f := &fakeService{answer: func(_ int, _ recorded, w http.ResponseWriter) { writeJSON(w, 200, answer) }}
	c, _ := newTestClient(t, f)

	for _, tt := range []struct {
		name string
		req  ListPrivateKeysRequest
		body string
	}{
		{"client organization", ListPrivateKeysRequest{}, `{"organizationId":"org-1"}`},
		{"explicit organization", ListPrivateKeysRequest{OrganizationID: "sub-1"}, `{"organizationId":"sub-1"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.ListPrivateKeys(t.Context(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			want := &ListPrivateKeysResponse{PrivateKeys: []PrivateKey{{
				PrivateKeyID: "pk-1", PublicKey: "02ab", PrivateKeyName: "hot", Curve: "CURVE_SECP256K1",
				Addresses:      []Address{{Format: "ADDRESS_FORMAT_ETHEREUM", Address: "0xAbC"}},
				PrivateKeyTags: []string{"t-1"},
				CreatedAt:      Timestamp{Seconds: "1795300000", Nanos: "0"}, UpdatedAt: Timestamp{Seconds: "1795300001", Nanos: "5"},
				Exported: true, Imported: true,
			}}}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %#v\nwant %#v", got, want)
			}
			reqs := f.all()
			r := reqs[len(reqs)-1]
			if r.Path != "/public/v1/query/list_private_keys" {
				t.Errorf("path = %s", r.Path)
			}
			if !jsonEqual(t, r.Body, tt.body) {
				t.Errorf("body = %s, want %s", r.Body, tt.body)
			}
			if !verifyStampIndependently(t, r.Header.Get(StampHeader), r.Body, testKey.PublicKeyHex()) {
				t.Error("stamp does not verify")
			}
		})
	}
}

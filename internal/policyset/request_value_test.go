package policyset

import (
	"math/big"
	"testing"
	"time"
)

// Value reads a scalar path as a policy does: from the activity, the
// key, the time, and keywords whose names have a dot.
func TestRequestValue(t *testing.T) {
	req := Request{Type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", Params: map[string]any{"type": "TRANSACTION_TYPE_ETHEREUM"},
		PrivateKey: &PrivateKey{ID: "key-1"}, Now: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	if err := req.SetKeyword("eth.tx", map[string]any{"to": "0xaa", "value": big.NewInt(5)}); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]any{"activity.type": req.Type, "activity.resource": "PRIVATE_KEY",
		"activity.params.type": "TRANSACTION_TYPE_ETHEREUM", "private_key.id": "key-1", "eth.tx.to": "0xaa", "time.now": req.Now} {
		if got, ok := req.Value(path); !ok || got != want {
			t.Errorf("%s: %v (%v), want %v", path, got, ok, want)
		}
	}
	got, _ := req.Value("eth.tx.value")
	if v, ok := got.(*big.Int); !ok || v.Int64() != 5 {
		t.Errorf("eth.tx.value: %v", got)
	}
	for _, path := range []string{"eth.tx.nonce", "solana.tx.fee", "wallet.id", "activity.params.missing", "eth.tx.to.length"} {
		if got, ok := req.Value(path); ok {
			t.Errorf("%s: %v, want none", path, got)
		}
	}
}

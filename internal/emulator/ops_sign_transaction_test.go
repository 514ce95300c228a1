package emulator

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/client/clienttest"
)

// eip1559To is a real unsigned EIP-1559 transfer of 1 gwei to to, as hex.
func eip1559To(t *testing.T, to string, nonce uint64) string {
	t.Helper()
	a := common.HexToAddress(to)
	return unsignedTxHex(t, types.NewTx(&types.DynamicFeeTx{ChainID: bigs(1), Nonce: nonce, GasTipCap: bigs(1e9), GasFeeCap: bigs(30e9),
		Gas: 21000, To: &a, Value: bigs(1e9)}), nil)
}

// signedSender decodes a signTransactionResult and recovers its sender.
func signedSender(t *testing.T, signedHex string) (*types.Transaction, common.Address) {
	t.Helper()
	if strings.HasPrefix(signedHex, "0x") {
		t.Fatalf("signedTransaction %q has 0x; the emulator's hex results have none", signedHex)
	}
	raw, err := hex.DecodeString(signedHex)
	if err != nil {
		t.Fatal(err)
	}
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		t.Fatalf("signed transaction does not decode: %v", err)
	}
	var chainID *big.Int // Homestead, for a legacy transaction without EIP-155
	if tx.Protected() {
		chainID = tx.ChainId()
	}
	from, err := types.Sender(types.LatestSignerForChainID(chainID), tx)
	if err != nil {
		t.Fatalf("sender: %v", err)
	}
	return tx, from
}

// newHotKey creates a secp256k1 key with an Ethereum address as root and
// returns its id and address.
func newHotKey(t *testing.T, c *client.Client) (string, string) {
	t.Helper()
	got, err := c.CreatePrivateKeys(t.Context(), client.CreatePrivateKeysParams{PrivateKeys: []client.PrivateKeyParams{
		keyParams("hot", curveSecp256k1, addressEthereum)}})
	if err != nil {
		t.Fatal(err)
	}
	k := got.Result.PrivateKeys[0]
	return k.PrivateKeyID, k.Addresses[0].Address
}

// The "done when": a non-root user's real EIP-1559 transaction to a
// destination no policy allows is denied; to an allowed one it completes
// with a transaction signed by the key, and the evaluations name the
// policy that allowed it.
func TestSignTransactionByPolicyOnDestination(t *testing.T) {
	w := newPolicyWorld(t)
	keyID, address := newHotKey(t, w.client)
	const allowed = "0x1111111111111111111111111111111111111111"
	pol := createPolicies(t, w.client, client.PolicyParams{PolicyName: "known destination", Effect: client.EffectAllow,
		Condition: "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2' && eth.tx.to == '" + allowed + "' && eth.tx.from == '" +
			strings.ToLower(address) + "' && eth.tx.type == 'TYPE_2'"})
	policyID := pol.Result.PolicyIDs[0]

	_, err := w.bob.SignTransaction(t.Context(), client.SignTransactionParams{SignWith: keyID,
		UnsignedTransaction: eip1559To(t, "0x3333333333333333333333333333333333333333", 0), Type: txTypeEthereum})
	deniedID := denied(t, err, "implicitly denied")
	if got := w.outcomes(t, deniedID); len(got) != 1 || len(got[0]) != 0 {
		t.Fatalf("denied activity's evaluations %v, want one record naming no policy (none applied)", got)
	}

	got, err := w.bob.SignTransaction(t.Context(), client.SignTransactionParams{SignWith: address,
		UnsignedTransaction: eip1559To(t, allowed, 1), Type: txTypeEthereum})
	if err != nil {
		t.Fatalf("allowed destination: %v", err)
	}
	tx, from := signedSender(t, got.Result.SignedTransaction)
	if from != common.HexToAddress(address) || tx.To() == nil || *tx.To() != common.HexToAddress(allowed) || tx.Nonce() != 1 {
		t.Fatalf("signed transaction from %s to %v nonce %d; want from %s to %s nonce 1", from.Hex(), tx.To(), tx.Nonce(), address, allowed)
	}
	evals, err := w.client.GetPolicyEvaluations(t.Context(), client.GetPolicyEvaluationsRequest{ActivityID: got.Activity.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(evals.PolicyEvaluations) != 1 {
		t.Fatalf("%d evaluation records, want 1", len(evals.PolicyEvaluations))
	}
	if e := evals.PolicyEvaluations[0].PolicyEvaluations; len(e) != 1 || e[0].PolicyID != policyID || e[0].Outcome != client.OutcomeAllow {
		t.Fatalf("evaluations %+v, want %s with %s", e, policyID, client.OutcomeAllow)
	}
}

// A signing that needs consensus signs only when the approval that
// completes it arrives; before, the activity has no result.
func TestSignTransactionSignsAtTheLastApproval(t *testing.T) {
	w := newPolicyWorld(t)
	keyID, address := newHotKey(t, w.client)
	createPolicies(t, w.client, client.PolicyParams{PolicyName: "over 1 ETH needs two", Effect: client.EffectAllow,
		Condition: "eth.tx.value > 1000000000000000000", Consensus: "approvers.count() >= 2"})
	big := new(big.Int).Mul(bigs(25), bigs(1e17)) // 2.5 ETH
	to := common.HexToAddress("0x2222222222222222222222222222222222222222")
	unsigned := unsignedTxHex(t, types.NewTx(&types.DynamicFeeTx{ChainID: bigs(10), Nonce: 4, GasTipCap: bigs(1), GasFeeCap: bigs(2),
		Gas: 21000, To: &to, Value: big}), nil)

	_, err := w.bob.SignTransaction(t.Context(), client.SignTransactionParams{SignWith: keyID, UnsignedTransaction: unsigned, Type: txTypeEthereum})
	var needed *client.ConsensusNeededError
	if !errors.As(err, &needed) {
		t.Fatalf("bob alone: %v, want consensus needed", err)
	}
	waiting, err := w.client.GetActivity(t.Context(), client.GetActivityRequest{ActivityID: needed.ActivityID})
	if err != nil || waiting.Status != client.StatusConsensusNeeded || len(waiting.Result) != 0 {
		t.Fatalf("waiting activity %+v %v, want CONSENSUS_NEEDED without a result", waiting, err)
	}
	nextMillisecond()
	done := approve(t, "carol", w.carol, needed, client.StatusCompleted)
	var res client.SignTransactionResult
	if err := json.Unmarshal(done.Result[client.OpSignTransaction.ResultKey], &res); err != nil {
		t.Fatal(err)
	}
	tx, from := signedSender(t, res.SignedTransaction)
	if from != common.HexToAddress(address) || tx.Value().Cmp(big) != 0 || tx.ChainId().Int64() != 10 {
		t.Fatalf("signed: from %s value %s chain %s", from.Hex(), tx.Value(), tx.ChainId())
	}
}

// A legacy transaction is signed with EIP-155 for its chain, or as
// Homestead without one.
func TestSignTransactionLegacy(t *testing.T) {
	e := newTestEmulator(t)
	keyID, address := newHotKey(t, e.client)
	for _, chainID := range []*big.Int{bigs(56), nil} {
		unsigned := unsignedTxHex(t, types.NewTx(&types.LegacyTx{Nonce: 1, GasPrice: bigs(5), Gas: 21000, To: &addrTo, Value: bigs(9)}), chainID)
		got, err := e.client.SignTransaction(t.Context(), client.SignTransactionParams{SignWith: keyID, UnsignedTransaction: unsigned, Type: txTypeEthereum})
		if err != nil {
			t.Fatalf("chain %v: %v", chainID, err)
		}
		tx, from := signedSender(t, got.Result.SignedTransaction)
		if from != common.HexToAddress(address) || tx.Protected() != (chainID != nil) {
			t.Fatalf("chain %v: from %s, protected %v", chainID, from.Hex(), tx.Protected())
		}
	}
}

// What the emulator does not sign: other chains' transactions (not
// decoded, so eth.tx is absent and a policy reading it errs), Ethereum
// with a key of another curve, an unknown key; and what it refuses.
func TestSignTransactionFailures(t *testing.T) {
	w := newPolicyWorld(t)
	keyID, _ := newHotKey(t, w.client)
	ed := createKeys(t, w.testEmulator, keyParams("ed", curveEd25519, addressSolana))[0].PrivateKeyID
	unsigned := eip1559To(t, "0x1111111111111111111111111111111111111111", 0)

	_, err := w.client.SignTransaction(t.Context(), client.SignTransactionParams{SignWith: keyID, UnsignedTransaction: "AQID", Type: "TRANSACTION_TYPE_SOLANA"})
	wantFailedActivity(t, err, client.CodeUnimplemented, "the emulator builds signed transactions for TRANSACTION_TYPE_ETHEREUM only, not TRANSACTION_TYPE_SOLANA")
	_, err = w.client.SignTransaction(t.Context(), client.SignTransactionParams{SignWith: ed, UnsignedTransaction: unsigned, Type: txTypeEthereum})
	wantFailedActivity(t, err, client.CodeInvalidArgument, "is a CURVE_ED25519 key; Ethereum transactions are signed with CURVE_SECP256K1 keys")
	_, err = w.client.SignTransaction(t.Context(), client.SignTransactionParams{SignWith: "nobody", UnsignedTransaction: unsigned, Type: txTypeEthereum})
	wantFailedActivity(t, err, client.CodeNotFound, "nobody")

	// A Solana transaction carries no eth.tx: the policy errs, bob is denied.
	createPolicies(t, w.client, client.PolicyParams{PolicyName: "small", Effect: client.EffectAllow, Condition: "eth.tx.value < 10"})
	_, err = w.bob.SignTransaction(t.Context(), client.SignTransactionParams{SignWith: keyID, UnsignedTransaction: "AQIE", Type: "TRANSACTION_TYPE_SOLANA"})
	id := denied(t, err, "implicitly denied")
	if got := w.outcomes(t, id); len(got) != 1 || got[0]["small"] != client.OutcomeError {
		t.Fatalf("outcomes %v, want small: %s", got, client.OutcomeError)
	}

	const typ = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2"
	for _, tt := range []struct{ name, params, want string }{
		{"bad type", `{"signWith":"k","unsignedTransaction":"00","type":"TRANSACTION_TYPE_DOGE"}`, `field parameters.type: unknown value "TRANSACTION_TYPE_DOGE"`},
		{"missing transaction", `{"signWith":"k","type":"TRANSACTION_TYPE_TRON"}`, "missing required field parameters.unsignedTransaction"},
		{"missing type", `{"signWith":"k","unsignedTransaction":"00"}`, "missing required field parameters.type"},
		{"empty signWith", `{"signWith":" ","unsignedTransaction":"00","type":"TRANSACTION_TYPE_TRON"}`, "field parameters.signWith"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantError(t, w.post(t, "/public/v1/submit/sign_transaction", submitBody(typ, tt.params), w.key), http.StatusBadRequest, tt.want)
		})
	}
}

// The decoded transaction is not persisted: after a restart an activity
// waiting for consensus decodes it again from its params, and the last
// approval signs it.
func TestSignTransactionWaitingSurvivesARestart(t *testing.T) {
	bobKey, carolKey := clienttest.NewAPIKey(t), clienttest.NewAPIKey(t)
	path := filepath.Join(t.TempDir(), "state.json")
	users := func(o *Options) {
		o.StatePath = path
		o.Fixtures = &Fixtures{Users: []FixtureUser{
			{UserID: "bob", UserName: "bob", APIKeys: []FixtureAPIKey{{APIKeyName: "bob key", PublicKey: bobKey.PublicKeyHex()}}},
			{UserID: "carol", UserName: "carol", APIKeys: []FixtureAPIKey{{APIKeyName: "carol key", PublicKey: carolKey.PublicKeyHex()}}}}}
	}
	e := newTestEmulator(t, users)
	keyID, address := newHotKey(t, e.client)
	createPolicies(t, e.client, client.PolicyParams{PolicyName: "two for the known destination", Effect: client.EffectAllow,
		Condition: "eth.tx.to == '0x1111111111111111111111111111111111111111'", Consensus: "approvers.count() >= 2"})
	_, err := clientFor(t, e.http.URL, bobKey).SignTransaction(t.Context(), client.SignTransactionParams{SignWith: keyID,
		UnsignedTransaction: eip1559To(t, "0x1111111111111111111111111111111111111111", 5), Type: txTypeEthereum})
	var needed *client.ConsensusNeededError
	if !errors.As(err, &needed) {
		t.Fatalf("bob: %v, want consensus needed", err)
	}
	_, url := restarted(t, e, path)
	nextMillisecond()
	done := approve(t, "carol, after the restart,", clientFor(t, url, carolKey), needed, client.StatusCompleted)
	var res client.SignTransactionResult
	if err := json.Unmarshal(done.Result[client.OpSignTransaction.ResultKey], &res); err != nil {
		t.Fatal(err)
	}
	if _, from := signedSender(t, res.SignedTransaction); from != common.HexToAddress(address) {
		t.Fatalf("signed by %s, want %s", from.Hex(), address)
	}
}

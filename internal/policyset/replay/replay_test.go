package replay

import (
	"encoding/json"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/payload"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/review"
)

const (
	signTx   = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2"
	keyAddr  = "0xAAAA000000000000000000000000000000000001"
	payee    = "0x2222222222222222222222222222222222222222"
	rootUser = "user-root"
)

var org = &Org{
	Keys:        []Key{{ID: "key-hot", Name: "hot", Tags: []string{"tag-hot"}, Addresses: []string{keyAddr}, Ethereum: keyAddr}},
	RootUserIDs: []string{rootUser}, RootQuorum: 1,
}

var when = time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)

// vote is an approval by user (tags) with an API key it lists.
func vote(user string, tags ...string) client.Vote {
	pub := "02" + user
	return client.Vote{UserID: user, Selection: client.VoteApproved, PublicKey: pub,
		User: client.User{UserID: user, UserTags: tags, APIKeys: []client.UserAPIKey{{APIKeyID: "api-" + user,
			Credential: client.Credential{PublicKey: pub, Type: client.CredentialTypeAPIKeyP256}}}}}
}

// transfer is a sign_transaction activity of value wei to payee, signed
// with signWith, approved by votes, in the shape list_activities gives.
func transfer(t *testing.T, id string, value int64, signWith string, votes ...client.Vote) client.Activity {
	t.Helper()
	return transferTo(t, id, value, payee, signWith, votes...)
}

// transferTo is transfer to dest.
func transferTo(t *testing.T, id string, value int64, dest, signWith string, votes ...client.Vote) client.Activity {
	t.Helper()
	to := common.HexToAddress(dest)
	unsigned, err := payload.EncodeUnsignedEthTx(types.NewTx(&types.DynamicFeeTx{ChainID: big.NewInt(1), GasTipCap: big.NewInt(1),
		GasFeeCap: big.NewInt(2), Gas: 21000, To: &to, Value: big.NewInt(value)}), nil)
	if err != nil {
		t.Fatal(err)
	}
	params, _ := json.Marshal(client.SignTransactionParams{SignWith: signWith, UnsignedTransaction: unsigned, Type: payload.TxTypeEthereum})
	return client.Activity{ID: id, Type: signTx, Status: "ACTIVITY_STATUS_COMPLETED", CreatedAt: client.NewTimestamp(when),
		Intent: map[string]json.RawMessage{client.OpSignTransaction.IntentKey: params}, Votes: votes}
}

// A transfer is rebuilt as the request the policies saw: its params, its
// approvers in order with their tags and credentials, its key with
// today's tags, eth.tx from the key's address, its time.
func TestRebuildTransfer(t *testing.T) {
	a := transfer(t, "act-1", 5, keyAddr, vote("bot", "tag-bot"), vote("alice", "tag-officer"))
	r, why := org.Rebuild(&a)
	if why != "" {
		t.Fatalf("not rebuilt: %s", why)
	}
	req := r.Req
	if req.Type != signTx || req.Params["type"] != payload.TxTypeEthereum || !req.Now.Equal(when) {
		t.Fatalf("request %+v", req)
	}
	if len(req.Approvers) != 2 || req.Approvers[0].ID != "bot" || req.Approvers[1].Tags[0] != "tag-officer" ||
		req.Credentials[1].ID != "api-alice" || req.Credentials[1].Type != client.CredentialTypeAPIKeyP256 {
		t.Fatalf("approvers %+v, credentials %+v", req.Approvers, req.Credentials)
	}
	if req.PrivateKey == nil || req.PrivateKey.ID != "key-hot" || req.PrivateKey.Tags[0] != "tag-hot" || !r.TodaysTags || r.KeyID != "key-hot" {
		t.Fatalf("key %+v", req.PrivateKey)
	}
	kw, _ := req.Keyword("eth.tx")
	tx, _ := kw.(map[string]any)
	if v, _ := tx["value"].(*big.Int); v == nil || v.Int64() != 5 || tx["from"] != "0xaaaa000000000000000000000000000000000001" {
		t.Fatalf("eth.tx %v", tx)
	}
	// The policies decide the rebuilt request as they would the original.
	allow := policyset.Policy{ID: "p", Effect: client.EffectAllow,
		Condition: "activity.type == '" + signTx + "' && eth.tx.value < 10 && private_key.tags.contains('tag-hot')",
		Consensus: "approvers.any(u, u.tags.contains('tag-officer'))"}
	if d := policyset.Decide([]policyset.Policy{allow}, req); d.Verdict != client.OutcomeAllow {
		t.Fatalf("decided %s", d.Verdict)
	}
}

// What cannot be rebuilt is counted by its reason.
func TestRebuildSkips(t *testing.T) {
	wallet := transfer(t, "w", 1, keyAddr, vote("bot"))
	wallet.Type = "ACTIVITY_TYPE_CREATE_WALLET"
	wallet.Intent = map[string]json.RawMessage{"createWalletIntent": json.RawMessage(`{"walletName":"w"}`)}
	noIntent := transfer(t, "n", 1, keyAddr, vote("bot"))
	noIntent.Intent = nil
	badPayload := transfer(t, "b", 1, keyAddr, vote("bot"))
	badPayload.Intent[client.OpSignTransaction.IntentKey] = json.RawMessage(`{"signWith":"` + keyAddr + `","unsignedTransaction":"0xzz","type":"TRANSACTION_TYPE_ETHEREUM"}`)
	for _, tc := range []struct {
		a    client.Activity
		want string
	}{
		{transfer(t, "r", 1, keyAddr, vote(rootUser)), SkipRoot},
		{wallet, SkipWallet},
		{transfer(t, "k", 1, "0x9999999999999999999999999999999999999999", vote("bot")), SkipKey},
		{noIntent, SkipIntent},
		{badPayload, SkipPayload},
		{transfer(t, "v", 1, keyAddr), SkipVotes},
	} {
		if _, why := org.Rebuild(&tc.a); why != tc.want {
			t.Errorf("%s: %q, want %q", tc.a.ID, why, tc.want)
		}
	}
}

// A replay decides every rebuilt activity before and after: a limit
// lowered moves the transfers above it, newest first, an allow's use is
// counted, and a policy that reads what history cannot give makes its
// activities not rebuilt.
func TestReplayMoves(t *testing.T) {
	h := NewHistory(org)
	var page []client.Activity
	for i := range 10 {
		page = append(page, transfer(t, fmt.Sprint("act-", i), int64(i), keyAddr, vote("bot", "tag-bot")))
	}
	page = append(page, transfer(t, "root", 1, keyAddr, vote(rootUser)))
	h.Add(page[:5])
	h.Add(page[5:])
	if h.Read != 11 || len(h.Requests) != 10 || h.NotRebuilt[SkipRoot] != 1 {
		t.Fatalf("read %d, rebuilt %d, not rebuilt %v", h.Read, len(h.Requests), h.NotRebuilt)
	}
	limit := func(n int) policyset.Policy {
		return policyset.Policy{ID: "limit", Effect: client.EffectAllow, Condition: fmt.Sprintf("activity.type == '%s' && eth.tx.value < %d", signTx, n)}
	}
	res := replayWhole(h, []policyset.Policy{limit(10)}, []policyset.Policy{limit(7)})
	if res.Replayed != 10 || len(res.Moved) != 3 || res.Moved[0].ActivityID != "act-7" || res.Moved[2].ActivityID != "act-9" ||
		res.Moved[0].Before != client.OutcomeAllow || res.Moved[0].After != client.OutcomeDenyImplicit || res.Moved[0].KeyID != "key-hot" {
		t.Fatalf("replay %+v", res)
	}
	if res.Used["limit"] != 7 || res.NotRebuilt[SkipRoot] != 1 || res.TodaysTags != 10 {
		t.Fatalf("used %v, not rebuilt %v, with today's tags %d", res.Used, res.NotRebuilt, res.TodaysTags)
	}
	// A Solana transaction is not decoded: a policy that reads solana.tx
	// would err on it where the service's would not, so it is not
	// rebuilt, by name. One that reads eth.tx errs on it as it would in
	// the service: that is the request, rebuilt.
	sol := transfer(t, "sol", 1, keyAddr, vote("bot"))
	sol.Intent[client.OpSignTransaction.IntentKey] = json.RawMessage(`{"signWith":"` + keyAddr + `","unsignedTransaction":"00","type":"TRANSACTION_TYPE_SOLANA"}`)
	h.Add([]client.Activity{sol})
	solana := policyset.Policy{ID: "s", Effect: client.EffectDeny, Condition: "activity.type == '" + signTx + "' && solana.tx.transfers.count() > 3"}
	res = replayWhole(h, []policyset.Policy{limit(10)}, []policyset.Policy{limit(10), solana})
	if res.Replayed != 10 || res.NotRebuilt["lacks solana.tx, which a policy reads"] != 1 {
		t.Fatalf("replayed %d, not rebuilt %v", res.Replayed, res.NotRebuilt)
	}
	res = replayWhole(h, []policyset.Policy{limit(10)}, []policyset.Policy{limit(3)})
	if res.Replayed != 11 || len(res.Moved) != 7 {
		t.Fatalf("replayed %d, moved %d", res.Replayed, len(res.Moved))
	}
}

// replayWhole replays h on two whole lists.
func replayWhole(h *History, before, after []policyset.Policy) Result {
	return h.Replay(h.Whole(before, after), review.ChangedVersions(before, after))
}

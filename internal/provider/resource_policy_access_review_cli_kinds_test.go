package provider

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// The kinds of change that the sampled review missed (issue 39, "Why"),
// each a test: its ground truth is a request the test writes by hand and
// policy_decision decides (before: not allowed; after: allowed), and the
// review must give a widening row for its type, rows that policy_changes
// gives too and whose examples policy_decision replays (checkChange), and
// a control on the type must fail the plan.

// reviewKind is one such change.
type reviewKind struct {
	name       string
	before     map[string]reviewPolicy // the managed policies before
	resource   string                  // the managed policy the change makes or edits
	after      reviewPolicy
	typ        string // the activity type whose access widens
	atMost     string // the control on typ that the change breaks
	request    string // the hand-written request, HCL
	wantBefore string // its outcome before; after, it is allowed
	// brokenBefore, when the policies before already break the control:
	// the policy that does, and a hand-written request it lets through
	// (HCL). The plan names that breach apart, as the organization's.
	brokenBefore, brokenRequest string
}

const (
	signTx  = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2"
	signRaw = "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"
	// deleteUsers is the type of a bulk deletion.
	deleteUsers = "ACTIVITY_TYPE_DELETE_USERS"
	tenETH      = "10000000000000000000"
)

// ethTransfer is a request to sign an Ethereum transaction of value wei
// to payee, with data, by a key with tags, approved by alice alone (HCL).
func ethTransfer(value, data string, tags ...string) string {
	return fmt.Sprintf(`{
    type        = %q
    approvers   = %s
    params      = { type = "TRANSACTION_TYPE_ETHEREUM" }
    private_key = { id = "key-1", tags = %s }
    eth = { tx = { type = "TYPE_2", chain_id = 1, to = %q, value = %q, data = %q } }
  }`, signTx, aliceAlone, hclStrings(tags), payee, value, data)
}

// deleteUsersOf is a request by alice alone to delete n users (HCL;
// Terraform's range makes at most 1,024 values).
func deleteUsersOf(n int) string {
	return fmt.Sprintf(`{
    type      = %q
    approvers = %s
    params    = { user_ids = [for i in range(%d) : "user-${i}"] }
  }`, deleteUsers, aliceAlone, n)
}

func hclStrings(ss []string) string {
	raw, _ := json.Marshal(append([]string{}, ss...))
	return string(raw)
}

const (
	aliceAlone = `[{ id = "alice" }]`
	payee      = "0x2222222222222222222222222222222222222222"
	approve    = "0x095ea7b3" // ERC-20 approve(address,uint256)
	transfer   = "0xa9059cbb" // ERC-20 transfer(address,uint256)
)

func reviewKinds() []reviewKind {
	blocked := map[string]reviewPolicy{
		"alone":      {"transfers alone", client.EffectAllow, "activity.type == '" + signTx + "'", ""},
		"over_limit": {"nothing over the limit", client.EffectDeny, "activity.type == '" + signTx + "' && eth.tx.value > " + tenETH, ""},
	}
	for i := 1; i <= 16; i++ {
		blocked[fmt.Sprintf("blocked_%02d", i)] = reviewPolicy{fmt.Sprintf("blocked address %02d", i), client.EffectDeny,
			fmt.Sprintf("activity.type == '%s' && eth.tx.to == '0x%040x'", signTx, 0xa00+i), ""}
	}
	raisedLimit := blocked["over_limit"]
	raisedLimit.condition = strings.Replace(raisedLimit.condition, tenETH, "2"+tenETH[1:], 1)
	walletsByThree := map[string]reviewPolicy{"wallets": {"wallets need three", client.EffectAllow,
		"activity.resource == 'WALLET' && activity.action == 'CREATE'", "approvers.count() >= 3"}}
	senior := "approvers.all(u, u.tags.contains('tag-senior'))"
	return []reviewKind{{
		name: "negated guardrail denies",
		before: map[string]reviewPolicy{
			"mainnet_only":  {"mainnet only", client.EffectDeny, "activity.type == '" + signTx + "' && eth.tx.chain_id != 1", ""},
			"approved_keys": {"approved keys only", client.EffectDeny, "activity.resource == 'PRIVATE_KEY' && !private_key.tags.contains('tag-approved')", ""},
		},
		resource: "payroll",
		after:    reviewPolicy{"payroll alone", client.EffectAllow, "activity.type == '" + signTx + "' && eth.tx.to == '" + payee + "'", ""},
		typ:      signTx, atMost: "consensus", wantBefore: client.OutcomeRequiresConsensus,
		request: ethTransfer("1", "0x", "tag-approved"),
	}, {
		name:         "keys with several tags",
		brokenBefore: "hot keys sign alone", brokenRequest: `{
    type        = "` + signRaw + `"
    approvers   = [{ id = "alice" }]
    private_key = { id = "key-1", tags = ["tag-hot"] }
  }`,
		before: map[string]reviewPolicy{
			"hot_alone": {"hot keys sign alone", client.EffectAllow, "activity.type == '" + signRaw + "' && private_key.tags.contains('tag-hot')", ""},
			"freeze":    {"frozen keys", client.EffectDeny, "activity.resource == 'PRIVATE_KEY' && private_key.tags.contains('tag-frozen')", ""},
		},
		resource: "freeze",
		after: reviewPolicy{"frozen keys", client.EffectDeny,
			"activity.resource == 'PRIVATE_KEY' && private_key.tags.contains('tag-frozen') && !private_key.tags.contains('tag-market-making')", ""},
		typ: signRaw, atMost: "consensus", wantBefore: client.OutcomeDenyExplicit,
		request: `{
    type        = "` + signRaw + `"
    approvers   = [{ id = "alice" }]
    private_key = { id = "key-1", tags = ["tag-hot", "tag-frozen", "tag-market-making"] }
  }`,
	}, {
		name:     "separation of duties met by one person",
		before:   map[string]reviewPolicy{"wallets": {"wallets need two", client.EffectAllow, "activity.resource == 'WALLET' && activity.action == 'CREATE'", "approvers.count() >= 2"}},
		resource: "wallets",
		after: reviewPolicy{"wallets need two", client.EffectAllow, "activity.resource == 'WALLET' && activity.action == 'CREATE'",
			"approvers.any(u, u.tags.contains('tag-agent')) && approvers.any(u, u.tags.contains('tag-human'))"},
		typ: "ACTIVITY_TYPE_CREATE_WALLET", atMost: "consensus", wantBefore: client.OutcomeRequiresConsensus,
		request: `{ type = "ACTIVITY_TYPE_CREATE_WALLET", approvers = [{ id = "alice", tags = ["tag-agent", "tag-human"] }] }`,
	}, {
		name:         "counts above a threshold",
		brokenBefore: "wallets need three", brokenRequest: `{ type = "ACTIVITY_TYPE_CREATE_WALLET", approvers = [{ id = "alice" }, { id = "bob" }, { id = "carol" }] }`,
		before:   walletsByThree,
		resource: "wallets",
		after: reviewPolicy{"wallets need three", client.EffectAllow, "activity.resource == 'WALLET' && activity.action == 'CREATE'",
			"approvers.count() >= 3 || (approvers.count() >= 2 && " + senior + ")"},
		typ: "ACTIVITY_TYPE_CREATE_WALLET", atMost: "denied", wantBefore: client.OutcomeRequiresConsensus,
		request: `{ type = "ACTIVITY_TYPE_CREATE_WALLET", approvers = [{ id = "alice", tags = ["tag-senior"] }, { id = "bob", tags = ["tag-senior"] }] }`,
	}, {
		name: "a deny's count consensus",
		before: map[string]reviewPolicy{
			"raw_alone": {"raw signing", client.EffectAllow, "activity.type == '" + signRaw + "'", ""},
			"raw_three": {"raw signing by three", client.EffectDeny, "activity.type == '" + signRaw + "'", "approvers.count() < 3"},
		},
		resource: "raw_three",
		after:    reviewPolicy{"raw signing by three", client.EffectDeny, "activity.type == '" + signRaw + "'", "approvers.count() < 3 && !" + senior},
		typ:      signRaw, atMost: "consensus", wantBefore: client.OutcomeDenyExplicit,
		request: `{
    type        = "` + signRaw + `"
    approvers   = [{ id = "alice", tags = ["tag-senior"] }]
    private_key = { id = "key-1" }
  }`,
	}, {
		name:         "many similar policies",
		brokenBefore: "transfers alone", brokenRequest: ethTransfer("1", "0x"),
		before:   blocked,
		resource: "over_limit",
		after:    raisedLimit,
		typ:      signTx, atMost: "consensus", wantBefore: client.OutcomeDenyExplicit,
		request: ethTransfer("15"+tenETH[2:], "0x"),
	}, {
		name:         "selector lists",
		brokenBefore: "token calls alone", brokenRequest: ethTransfer("0", transfer+strings.Repeat("0", 128)),
		before:   map[string]reviewPolicy{"tokens": {"token calls alone", client.EffectAllow, "activity.type == '" + signTx + "' && eth.tx.data[0..10] in ['" + transfer + "']", ""}},
		resource: "tokens",
		after:    reviewPolicy{"token calls alone", client.EffectAllow, "activity.type == '" + signTx + "' && eth.tx.data[0..10] in ['" + transfer + "', '" + approve + "']", ""},
		typ:      signTx, atMost: "consensus", wantBefore: client.OutcomeRequiresConsensus,
		request: ethTransfer("0", approve+strings.Repeat("0", 128)),
	}, {
		name:         "the sender compared with the destination",
		brokenBefore: "transfers alone", brokenRequest: ethTransfer("1", "0x"),
		before: map[string]reviewPolicy{
			"alone": {"transfers alone", client.EffectAllow, "activity.type == '" + signTx + "'", ""},
			"self":  {"no self-sends", client.EffectDeny, "activity.type == '" + signTx + "' && eth.tx.to == eth.tx.from", ""},
		},
		resource: "self",
		after: reviewPolicy{"no self-sends", client.EffectDeny,
			"activity.type == '" + signTx + "' && eth.tx.to == eth.tx.from && eth.tx.to != '" + payee + "'", ""},
		typ: signTx, atMost: "consensus", wantBefore: client.OutcomeDenyExplicit,
		request: `{
    type        = "` + signTx + `"
    approvers   = ` + aliceAlone + `
    params      = { type = "TRANSACTION_TYPE_ETHEREUM" }
    private_key = { id = "key-1" }
    eth = { tx = { type = "TYPE_2", chain_id = 1, to = "` + payee + `", from = "` + payee + `", value = "1", data = "0x" } }
  }`,
	}, {
		name:         "an ABI argument's cap raised",
		brokenBefore: "transfers alone", brokenRequest: ethTransfer("1", "0x"),
		before: map[string]reviewPolicy{
			"alone":  {"transfers alone", client.EffectAllow, "activity.type == '" + signTx + "'", ""},
			"unwrap": {"unwrap cap", client.EffectDeny, "activity.type == '" + signTx + "' && eth.tx.contract_call_args['wad'] > " + tenETH, ""},
		},
		resource: "unwrap",
		after:    reviewPolicy{"unwrap cap", client.EffectDeny, "activity.type == '" + signTx + "' && eth.tx.contract_call_args['wad'] > " + tenETH + "0", ""},
		typ:      signTx, atMost: "consensus", wantBefore: client.OutcomeDenyExplicit,
		request: `{
    type        = "` + signTx + `"
    approvers   = ` + aliceAlone + `
    params      = { type = "TRANSACTION_TYPE_ETHEREUM" }
    private_key = { id = "key-1" }
    eth = { tx = { type = "TYPE_2", chain_id = 1, to = "` + payee + `", value = "0", data = "0x", contract_call_args = { wad = "50000000000000000000" } } }
  }`,
	}, {
		// Two overlapping slices that disagree where they overlap ('5'
		// and '6' at position 5): the deny never applies again.
		name:         "a selector deny's slices mistyped",
		brokenBefore: "transfers alone", brokenRequest: ethTransfer("1", "0x"),
		before: map[string]reviewPolicy{
			"alone":    {"transfers alone", client.EffectAllow, "activity.type == '" + signTx + "'", ""},
			"selector": {"no token transfers", client.EffectDeny, "activity.type == '" + signTx + "' && eth.tx.data[0..10] == '" + transfer + "'", ""},
		},
		resource: "selector",
		after: reviewPolicy{"no token transfers", client.EffectDeny,
			"activity.type == '" + signTx + "' && eth.tx.data[0..6] == '0xa905' && eth.tx.data[5..10] == '69cbb'", ""},
		typ: signTx, atMost: "consensus", wantBefore: client.OutcomeDenyExplicit,
		request: ethTransfer("0", transfer+strings.Repeat("0", 128)),
	}, {
		// Past the list elements a count is decided with: the raised
		// threshold lets 1,000 deletions through alone.
		name:         "a bulk deletion's threshold raised",
		brokenBefore: "deletes alone", brokenRequest: deleteUsersOf(1),
		before: map[string]reviewPolicy{
			"alone": {"deletes alone", client.EffectAllow, "activity.type == '" + deleteUsers + "'", ""},
			"bulk":  {"no bulk deletes", client.EffectDeny, "activity.type == '" + deleteUsers + "' && activity.params.user_ids.count() > 100", ""},
		},
		resource: "bulk",
		after:    reviewPolicy{"no bulk deletes", client.EffectDeny, "activity.type == '" + deleteUsers + "' && activity.params.user_ids.count() > 1000", ""},
		typ:      deleteUsers, atMost: "consensus", wantBefore: client.OutcomeDenyExplicit,
		request: deleteUsersOf(1000),
	}, {
		name:         "combinations of three or more fields",
		brokenBefore: "hot payouts alone", brokenRequest: ethTransfer("1", "0x", "tag-hot"),
		before: map[string]reviewPolicy{"hot_payouts": {"hot payouts alone", client.EffectAllow,
			"activity.type == '" + signTx + "' && eth.tx.chain_id == 1 && eth.tx.to == '" + payee + "' && eth.tx.value <= " + tenETH[:len(tenETH)-1] + " && private_key.tags.contains('tag-hot')", ""}},
		resource: "hot_payouts",
		after: reviewPolicy{"hot payouts alone", client.EffectAllow,
			"activity.type == '" + signTx + "' && eth.tx.chain_id == 1 && eth.tx.to == '" + payee + "' && eth.tx.value <= " + tenETH + " && private_key.tags.contains('tag-hot')", ""},
		typ: signTx, atMost: "consensus", wantBefore: client.OutcomeRequiresConsensus,
		request: ethTransfer("5"+tenETH[2:], "0x", "tag-hot"),
	}}
}

// onlyControl is a provider block with one control.
func onlyControl(name, activityType, atMost string) string {
	return fmt.Sprintf(`
provider "custody" {
  controls = [{ name = %q, activity_types = [%q], at_most = %q }]
}
`, name, activityType, atMost)
}

func TestAccessReviewCLI_kinds(t *testing.T) {
	for _, k := range reviewKinds() {
		t.Run(strings.ReplaceAll(k.name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			control := k.name + " held"
			w := newReviewWorldOf(t, k.before, onlyControl(control, k.typ, k.atMost))
			after := with(k.before, k.resource, k.after)
			if got := w.decideEach(k.before, after, []string{k.request})[0]; !slices.Equal(got, []string{k.wantBefore, client.OutcomeAllow}) {
				t.Fatalf("ground truth: policy_decision decides the hand-written request %v, want [%s %s]", got, k.wantBefore, client.OutcomeAllow)
			}
			if k.brokenBefore != "" {
				if got := w.decideEach(k.before, after, []string{k.brokenRequest})[0]; got[0] != client.OutcomeAllow {
					t.Fatalf("ground truth: the policies before should break the control for %s, but decide it %v", k.brokenRequest, got)
				}
			}
			rows, diags := w.checkChange(k.before, after, "custody_policy."+k.resource, 1)
			widening := false
			for _, r := range rows {
				widening = widening || (r.After == client.OutcomeAllow && r.Before != client.OutcomeAllow && strings.Contains(","+strings.Join(r.ActivityTypes, ",")+",", ","+k.typ+","))
			}
			if !widening {
				t.Errorf("no row widens %s to %s: %+v", k.typ, client.OutcomeAllow, rows)
			}
			// The change's breach, on its resource; and the organization's,
			// where the policies before already broke the control.
			var newly, kept int
			broken := reviewDiags(diags, "Control broken: ")
			for _, d := range broken {
				switch {
				case d.Severity != "error" || d.Summary != "Control broken: "+control:
				case strings.HasPrefix(d.Detail, "After ") && d.Address == "custody_policy."+k.resource:
					newly++
				case strings.HasPrefix(d.Detail, "The organization's policies break") && k.brokenBefore != "" &&
					strings.Contains(d.Detail, "- \""+k.brokenBefore+"\" ("):
					kept++
				}
			}
			wantKept := 0
			if k.brokenBefore != "" {
				wantKept = 1
			}
			if newly != 1 || kept != wantKept || len(broken) != newly+kept {
				t.Errorf("want the plan failed by one \"Control broken: %s\" on the change and %d naming %q as the organization's; got %+v",
					control, wantKept, k.brokenBefore, broken)
			}
		})
	}
}

// Exact rewrites that compare two of the request's values, or read one
// string by several slices, give no row and no "not proved": "two
// distinct officers" written with nested quantifiers for the filter count
// it replaces, the self-send deny with its operands swapped, and the
// ERC-20 selector deny written as overlapping, adjacent and nested
// slices.
func TestAccessReviewCLI_quietRewrites(t *testing.T) {
	officers := "approvers.all(u, u.tags.contains('tag-officer') || u.tags.contains('tag-ops'))"
	before := map[string]reviewPolicy{
		"wallets": {"wallets by two officers", client.EffectAllow, "activity.resource == 'WALLET' && activity.action == 'CREATE'",
			"approvers.filter(u, u.tags.contains('tag-officer')).count() >= 2 && " + officers},
		"self":     {"no self-sends", client.EffectDeny, "activity.type == '" + signTx + "' && eth.tx.to == eth.tx.from", ""},
		"selector": {"no token transfers", client.EffectDeny, "activity.type == '" + signTx + "' && eth.tx.data[0..10] == '" + transfer + "'", ""},
	}
	after := with(before, "wallets", reviewPolicy{"wallets by two officers", client.EffectAllow, "activity.resource == 'WALLET' && activity.action == 'CREATE'",
		"approvers.any(u, u.tags.contains('tag-officer') && approvers.any(v, v.id != u.id && v.tags.contains('tag-officer'))) && " + officers})
	after = with(after, "self", reviewPolicy{"no self-sends", client.EffectDeny, "activity.type == '" + signTx + "' && eth.tx.from == eth.tx.to", ""})
	after = with(after, "selector", reviewPolicy{"no token transfers", client.EffectDeny, "activity.type == '" + signTx +
		"' && eth.tx.data[0..6] == '0xa905' && eth.tx.data[5..10] == '59cbb' && eth.tx.data[0..10][6..10] == '9cbb' && eth.tx.data[0..2] == '0x'", ""})
	w := newReviewWorldOf(t, before, "")
	code, diags := w.planJSON(reviewResources(after))
	if code != 2 {
		t.Fatalf("plan exited %d, want 2: %+v", code, diags)
	}
	for _, d := range diags {
		if strings.HasPrefix(d.Summary, "Access change") || strings.Contains(d.Detail, "not proved") {
			t.Errorf("an exact rewrite changes no decision: %+v", d)
		}
	}
	if rows := w.functionRows(before, after); len(rows) != 0 {
		t.Errorf("policy_changes should find no row for exact rewrites: %+v", rows)
	}
}

package review

import (
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

const (
	signTx = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2"
	export = "ACTIVITY_TYPE_EXPORT_PRIVATE_KEY"
)

// org is a small organization: signing needs two approvers, transfers up
// to 1 ETH from hot keys need none, export needs an admin.
func org() []policyset.Policy {
	return []policyset.Policy{
		{ID: "p-sign", Name: "signing needs two", Effect: client.EffectAllow,
			Condition: "activity.type == '" + signTx + "'", Consensus: "approvers.count() >= 2"},
		{ID: "p-limit", Name: "small transfers", Effect: client.EffectAllow,
			Condition: "activity.type == '" + signTx + "' && private_key.tags.contains('hot') && eth.tx.value <= 1000000000000000000"},
		{ID: "p-export", Name: "export by admins", Effect: client.EffectAllow,
			Condition: "activity.resource == 'PRIVATE_KEY' && activity.action == 'EXPORT'",
			Consensus: "approvers.any(u, u.tags.contains('admin'))"},
	}
}

func find(ps []policyset.Policy, id string) *policyset.Policy {
	for i := range ps {
		if ps[i].ID == id {
			p := ps[i]
			return &p
		}
	}
	return nil
}

// apply is the organization with c, as a set.
func apply(ps []policyset.Policy, c Change) []policyset.Policy {
	var out []policyset.Policy
	for _, p := range ps {
		if c.Before != nil && p.ID == c.Before.ID {
			continue
		}
		out = append(out, p)
	}
	if c.After != nil {
		out = append(out, *c.After)
	}
	return out
}

// crossCheck decides every row's request with the engine over both sets:
// the report cannot drift from policyset.Decide.
func crossCheck(t *testing.T, before, after []policyset.Policy, rows []Row) {
	t.Helper()
	for _, r := range rows {
		if !r.Proved {
			continue // a not-proved row claims nothing
		}
		if got := policyset.Decide(before, r.Request).Verdict; got != r.Before {
			t.Errorf("%s: before: Decide gives %s, report %s", r.Example, got, r.Before)
		}
		if got := policyset.Decide(after, r.Request).Verdict; got != r.After {
			t.Errorf("%s: after: Decide gives %s, report %s", r.Example, got, r.After)
		}
	}
}

func report(t *testing.T, ps []policyset.Policy, c Change) Report {
	t.Helper()
	r := NewOrg(ps, nil).Report(c)
	crossCheck(t, ps, apply(ps, c), r.Rows)
	for i := 1; i < len(r.Rows); i++ {
		a, b := r.Rows[i-1], r.Rows[i]
		if rank(a.Before, a.After) > rank(b.Before, b.After) {
			t.Errorf("row %d (%s -> %s) after a less widening one", i, b.Before, b.After)
		}
	}
	// policy_changes gives the same rows as the plan's warning.
	if cmp := Compare(ps, apply(ps, c), nil); cmp.Detail(1000) != r.Detail(1000) && !r.Empty() {
		t.Errorf("Compare:\n%s\nReport:\n%s", cmp.Detail(1000), r.Detail(1000))
	}
	return r
}

func TestReportWideningAllow(t *testing.T) {
	ps := org()
	after := &policyset.Policy{ID: "p-new", Name: "cold keys alone", Effect: client.EffectAllow,
		Condition: "activity.type == '" + signTx + "' && private_key.tags.contains('cold')"}
	r := report(t, ps, Change{After: after})
	if len(r.Rows) == 0 {
		t.Fatal("no rows")
	}
	first := r.Rows[0]
	if first.Type != signTx || first.Before != client.OutcomeRequiresConsensus || first.After != client.OutcomeAllow || !first.Widening() {
		t.Errorf("first row %+v", first)
	}
	if len(first.Request.Approvers) != 1 {
		t.Errorf("widening row not for one approver: %s", first.Example)
	}
	if !strings.Contains(first.Example, `tags = ["cold"]`) {
		t.Errorf("example %s", first.Example)
	}
	d := r.Detail(10)
	if !strings.Contains(d, "  "+signTx+": OUTCOME_REQUIRES_CONSENSUS -> OUTCOME_ALLOW") || !strings.Contains(d, "  Proved over every request") {
		t.Errorf("detail:\n%s", d)
	}
	for _, line := range strings.Split(d, "\n") {
		if !strings.HasPrefix(line, "  ") {
			t.Errorf("line not indented: %q", line)
		}
	}
}

func TestReportRaisedLimit(t *testing.T) {
	ps := org()
	after := *find(ps, "p-limit")
	after.Condition = "activity.type == '" + signTx + "' && private_key.tags.contains('hot') && eth.tx.value <= 2000000000000000000"
	r := report(t, ps, Change{Before: find(ps, "p-limit"), After: &after})
	// One region, (1, 2] ETH, whose witness sits at its closed end.
	if len(r.Rows) != 1 || r.Rows[0].After != client.OutcomeAllow || len(r.Rows[0].Request.Approvers) != 1 {
		t.Fatalf("rows:\n%s", r.Detail(10))
	}
	v, _ := r.Rows[0].Request.Keyword("eth.tx")
	tx, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("eth.tx is %T", v)
	}
	if got := hclValue(tx["value"]); got != `"2000000000000000000"` {
		t.Errorf("witness value %s, want the closed end 2 ETH", got)
	}
	if want := "eth.tx.value from 1000000000000000001 wei (1.000000000000000001 ETH) to 2000000000000000000 wei (2 ETH)"; !strings.Contains(r.Rows[0].Words, want) {
		t.Errorf("words %q lack %q", r.Rows[0].Words, want)
	}
}

func TestReportNarrowingDenyOnExport(t *testing.T) {
	ps := org()
	after := &policyset.Policy{ID: "p-deny", Name: "no export", Effect: client.EffectDeny,
		Condition: "activity.type == '" + export + "'"}
	r := report(t, ps, Change{After: after})
	if len(r.Rows) == 0 {
		t.Fatal("no rows")
	}
	for _, row := range r.Rows {
		if row.Type != export || row.After != client.OutcomeDenyExplicit || row.Widening() {
			t.Errorf("row %+v", row)
		}
	}
}

func TestReportNoDecisionChange(t *testing.T) {
	ps := org()
	sign := find(ps, "p-sign")
	renamed := *sign
	renamed.Name = "renamed"
	rewritten := *sign
	rewritten.Consensus = "approvers.count() >= 2 " // same decisions, other text
	for name, c := range map[string]Change{
		"rename":   {Before: sign, After: &renamed},
		"notes":    {Before: sign, After: sign},
		"rewrite":  {Before: sign, After: &rewritten},
		"identity": {},
	} {
		if r := NewOrg(ps, nil).Report(c); !r.Empty() {
			t.Errorf("%s: %s", name, r.Detail(10))
		}
	}
}

func TestReportWeakenedConsensus(t *testing.T) {
	ps := org()
	ps[0].Consensus = "approvers.count() >= 3"
	after := ps[0]
	after.Consensus = "approvers.count() >= 2"
	r := report(t, ps, Change{Before: &ps[0], After: &after})
	if len(r.Rows) == 0 {
		t.Fatal("no rows")
	}
	for _, row := range r.Rows {
		if len(row.Request.Approvers) != 2 || row.After != client.OutcomeAllow {
			t.Errorf("row %+v", row)
		}
	}
}

func TestDeterministic(t *testing.T) {
	ps := org()
	after := &policyset.Policy{ID: "p-new", Effect: client.EffectAllow,
		Condition: "activity.type == '" + signTx + "' && private_key.tags.contains('cold') && eth.tx.to in ['0xb', '0xa']"}
	want := NewOrg(ps, nil).Report(Change{After: after}).Detail(1000)
	rev := []policyset.Policy{ps[2], ps[0], ps[1]}
	if got := NewOrg(rev, nil).Report(Change{After: after}).Detail(1000); got != want {
		t.Errorf("order changes the report:\n%s\nvs\n%s", got, want)
	}
	if got := Compare(ps, apply(ps, Change{After: after}), nil).Detail(1000); got != Compare(rev, apply(rev, Change{After: after}), nil).Detail(1000) {
		t.Errorf("Compare depends on order")
	}
}

func TestHCLString(t *testing.T) {
	for in, want := range map[string]string{`a"b`: `"a\"b"`, "${x}": `"$${x}"`, "%{x}": `"%%{x}"`, "a\nb": `"a\nb"`, `\`: `"\\"`, "$x": `"$x"`} {
		if got := hclString(in); got != want {
			t.Errorf("hclString(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestBenchCorpusReport(t *testing.T) {
	ps := benchCorpus(200, "")
	c := changeOf(ps, 8, 7_000_000_000_000_000_000)
	r := NewOrg(ps, nil).Report(c)
	if len(r.Rows) != 1 {
		t.Errorf("%d rows, want the one range between the limits:\n%s", len(r.Rows), r.Detail(10))
	}
	crossCheck(t, ps, apply(ps, c), r.Rows)
}

func TestReportERC20Selector(t *testing.T) {
	ps := org()
	after := &policyset.Policy{ID: "p-erc20", Name: "token transfers to the treasury", Effect: client.EffectAllow,
		Condition: "activity.type == '" + signTx + "' && eth.tx.data[0..10] == '0xa9059cbb' && eth.tx.data[34..74] == '" +
			strings.Repeat("ab", 20) + "'"}
	r := report(t, ps, Change{After: after})
	if len(r.Rows) == 0 || !r.Rows[0].Proved {
		t.Fatalf("rows:\n%s", r.Detail(10))
	}
	v, _ := r.Rows[0].Request.Keyword("eth.tx")
	tx, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("eth.tx is %T", v)
	}
	if want := "0xa9059cbb" + strings.Repeat("0", 24) + strings.Repeat("ab", 20); tx["data"] != want {
		t.Errorf("data %v, want %s", tx["data"], want)
	}
}

func TestReportNotProvedWhereItCannotDecide(t *testing.T) {
	ps := org()
	// An ABI argument read as a bool: the one use of such a value the
	// analysis does not type (compared with constants, it would).
	after := &policyset.Policy{ID: "p-t", Name: "wad limit", Effect: client.EffectAllow,
		Condition: "activity.type == '" + signTx + "' && eth.tx.contract_call_args['approved']"}
	r := NewOrg(ps, nil).Report(Change{After: after})
	found := false
	for _, row := range r.Rows {
		if row.After == NotProved && strings.Contains(row.Words, "contract_call_args") && strings.Contains(row.Words, `"wad limit"`) {
			found = true
		}
		if row.Proved {
			crossCheck(t, ps, apply(ps, Change{After: after}), []Row{row})
		}
	}
	if !found || !strings.Contains(r.Detail(10), "not proved") {
		t.Errorf("no not-proved row naming the ABI argument:\n%s", r.Detail(10))
	}
}

func TestDetailLimit(t *testing.T) {
	r := Report{Rows: make([]Row, 12), Types: 2, More: 3}
	for i := range r.Rows {
		r.Rows[i] = Row{Type: signTx, Types: []string{signTx}, Before: client.OutcomeDenyImplicit, After: client.OutcomeAllow, Words: "w",
			Example: "{ }", Proved: true}
	}
	d := r.Detail(10)
	if got := strings.Count(d, signTx+": "); got != 10 {
		t.Errorf("%d rows shown", got)
	}
	lines := strings.Split(d, "\n")
	want := []string{"  and 5 more", `  Proved over every request of 2 activity types (under the request model of the guide "Reviewing policy changes").`}
	if strings.Join(lines[len(lines)-2:], "|") != strings.Join(want, "|") {
		t.Errorf("tail %q", lines[len(lines)-2:])
	}
}

// TestNamedApproverAlone: a consensus that names a user lets that user act
// alone; the sample tries each named user alone, so the report shows it
// and a control "never alone" is broken by it.
func TestNamedApproverAlone(t *testing.T) {
	ps := org()
	alice := &policyset.Policy{ID: "p-alice", Name: "alice signs", Effect: client.EffectAllow,
		Condition: "activity.type == '" + signTx + "'", Consensus: "approvers.any(u, u.id == 'user-alice')"}
	r := report(t, ps, Change{After: alice})
	found := false
	for _, row := range r.Rows {
		if row.Type == signTx && row.After == client.OutcomeAllow && len(row.Request.Approvers) == 1 && row.Request.Approvers[0].ID == "user-alice" {
			found = true
		}
	}
	if !found {
		t.Fatalf("no row for user-alice signing alone:\n%s", r.Detail(50))
	}
	controls := []Control{{Name: "signing never alone", ActivityTypes: []string{signTx}, AtMost: AtMostConsensus}}
	breached := false
	for _, b := range NewOrg(ps, nil).CheckControls(Change{After: alice}, controls) {
		if b.Row.Request.Approvers[0].ID == "user-alice" {
			breached = true
		}
	}
	if !breached {
		t.Error("user-alice signing alone does not break \"signing never alone\"")
	}
}

// hclValue is v as writeHCLValue writes it.
func hclValue(v any) string {
	var b strings.Builder
	writeHCLValue(&b, v)
	return b.String()
}

// hclString is s as writeHCLString writes it.
func hclString(s string) string {
	var b strings.Builder
	writeHCLString(&b, s)
	return b.String()
}

// A policy that names a root user by id: no row has the root user as
// requester or approver, and the review asks for the root ids only where
// a policy names users.
func TestRootUsersNeverApprove(t *testing.T) {
	ps := org()
	root := &policyset.Policy{ID: "p-root", Name: "root signs", Effect: client.EffectAllow,
		Condition: "activity.type == '" + signTx + "'", Consensus: "approvers.any(u, u.id == 'root-1')"}
	o := NewOrg(ps, nil)
	if !o.NeedsRootIDs(Change{After: root}) || o.NeedsRootIDs(Change{After: find(ps, "p-sign")}) {
		t.Fatal("NeedsRootIDs: want true only for a policy naming users")
	}
	o.SetRootIDs([]string{"root-1"})
	r := o.Report(Change{After: root})
	for _, row := range r.Rows {
		for _, u := range row.Request.Approvers {
			if u.ID == "root-1" {
				t.Errorf("a row has the root user as an approver: %s", row.Example)
			}
		}
	}
	if len(NewOrg(ps, nil).Report(Change{After: root}).Rows) == 0 {
		t.Error("without root ids, root-1 is an ordinary user and the change moves requests")
	}
}

// Package policysettest reads the table of decisions in
// internal/policyset/testdata/decisions.json, which the engine's tests, the
// emulator's and the provider function's all run, so that the three agree
// case by case. It is test support: nothing outside tests imports it.
package policysettest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// Case is one request to a policy set and the decision it must get.
type Case struct {
	Name     string   `json:"name"`
	Policies []Policy `json:"policies"`
	Request  Request  `json:"request"`
	Want     Want     `json:"want"`
	// Emulator is set where the emulator cannot make the request the
	// table describes: it says why and what the emulator decides instead.
	Emulator *EmulatorOverride `json:"emulator"`
	// RawPolicies and RawRequest are the case's policies and request as
	// written, in the shape the policy_decision function takes.
	RawPolicies json.RawMessage `json:"-"`
	RawRequest  json.RawMessage `json:"-"`
}

// Policy is a policy of a case.
type Policy struct {
	Name      string `json:"name"`
	Effect    string `json:"effect"`
	Condition string `json:"condition"`
	Consensus string `json:"consensus"`
	Time      string `json:"time"`
}

// Request is the request of a case, as the function takes it.
type Request struct {
	Type       string         `json:"type"`
	Approvers  []User         `json:"approvers"`
	Params     map[string]any `json:"params"`
	PrivateKey *PrivateKey    `json:"private_key"`
	Time       string         `json:"time"`
	RootQuorum *RootQuorum    `json:"root_quorum"`

	// The condition keywords beyond activity and private_key, in the
	// function's attributes (policyset.KeywordAttributes): eth = {tx,
	// eip_712, eip_7702_authorization}, solana = {tx}, wallet, secret, ...
	Eth           map[string]any `json:"eth"`
	Solana        map[string]any `json:"solana"`
	Tron          map[string]any `json:"tron"`
	Bitcoin       map[string]any `json:"bitcoin"`
	Tempo         map[string]any `json:"tempo"`
	Wallet        map[string]any `json:"wallet"`
	Wallets       []any          `json:"wallets"`
	WalletAccount map[string]any `json:"wallet_account"`
	Secret        map[string]any `json:"secret"`
}

// KeywordAttributes are the request's keyword attributes that are set, by
// name, as policyset.Request.SetKeywordAttribute takes them.
func (r Request) KeywordAttributes() map[string]any {
	out := map[string]any{}
	for name, m := range map[string]map[string]any{"eth": r.Eth, "solana": r.Solana, "tron": r.Tron, "bitcoin": r.Bitcoin,
		"tempo": r.Tempo, "wallet": r.Wallet, "wallet_account": r.WalletAccount, "secret": r.Secret} {
		if m != nil {
			out[name] = m
		}
	}
	if r.Wallets != nil {
		out["wallets"] = r.Wallets
	}
	return out
}

// EmulatorOverride is what the emulator decides for a case whose request
// it cannot make as the table writes it, and why.
type EmulatorOverride struct {
	Why  string `json:"why"`
	Want Want   `json:"want"`
}

// User is an approver of a case.
type User struct {
	ID    string   `json:"id"`
	Tags  []string `json:"tags"`
	Email string   `json:"email"`
	Alias string   `json:"alias"`
}

// PrivateKey is the key a case signs with.
type PrivateKey struct {
	ID    string   `json:"id"`
	Tags  []string `json:"tags"`
	Label string   `json:"label"`
}

// RootQuorum is the root quorum of a case.
type RootQuorum struct {
	UserIDs   []string `json:"user_ids"`
	Threshold int      `json:"threshold"`
}

// Want is the decision a case must get; Verdict is "outcome" in the table,
// as policy_decision returns it.
type Want struct {
	Verdict   string       `json:"outcome"`
	DecidedBy []string     `json:"decided_by"`
	Policies  []WantPolicy `json:"policies"`
}

// WantPolicy is one policy's outcome; Error is a part of its evaluation
// error's message, "" when it has none.
type WantPolicy struct {
	Name    string `json:"name"`
	Outcome string `json:"outcome"`
	Error   string `json:"error"`
}

// Load reads the table; a table that cannot be read, or that lost cases,
// fails t.
func Load(t testing.TB) []Case {
	t.Helper()
	cases, err := load()
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < minCases {
		t.Fatalf("the decision table has %d cases, fewer than %d: it lost some", len(cases), minCases)
	}
	return cases
}

// minCases is how many cases the table has at least.
const minCases = 20

func load() ([]Case, error) {
	_, here, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(here), "..", "testdata", "decisions.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var file struct {
		Cases []json.RawMessage `json:"cases"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	cases := make([]Case, len(file.Cases))
	for i, rawCase := range file.Cases {
		dec := json.NewDecoder(bytes.NewReader(rawCase))
		dec.DisallowUnknownFields()
		dec.UseNumber()
		if err := dec.Decode(&cases[i]); err != nil {
			return nil, fmt.Errorf("%s: case %d: %w", path, i, err)
		}
		var parts struct {
			Policies json.RawMessage `json:"policies"`
			Request  json.RawMessage `json:"request"`
		}
		if err := json.Unmarshal(rawCase, &parts); err != nil {
			return nil, err
		}
		cases[i].RawPolicies, cases[i].RawRequest = parts.Policies, parts.Request
	}
	return cases, nil
}

// EnginePolicies are the case's policies as the engine takes them.
func (c Case) EnginePolicies() []policyset.Policy {
	out := make([]policyset.Policy, len(c.Policies))
	for i, p := range c.Policies {
		out[i] = policyset.Policy{Name: p.Name, Effect: p.Effect, Condition: p.Condition, Consensus: p.Consensus, Time: p.Time}
	}
	return out
}

// EngineRequest is the case's request as the engine takes it; a request
// that cannot exist by the catalogue's request table, or lacks what it
// says the type carries, fails t.
func (c Case) EngineRequest(t testing.TB) policyset.Request {
	t.Helper()
	r := c.Request
	req := policyset.Request{Type: r.Type, Params: map[string]any{}}
	for _, a := range r.Approvers {
		req.Approvers = append(req.Approvers, policyset.User{ID: a.ID, Tags: a.Tags, Email: a.Email, Alias: a.Alias})
	}
	for k, v := range r.Params {
		req.Params[k] = languageValue(v)
	}
	if k := r.PrivateKey; k != nil {
		req.PrivateKey = &policyset.PrivateKey{ID: k.ID, Tags: k.Tags, Label: k.Label}
	}
	if r.Time != "" {
		now, err := time.Parse(time.RFC3339, r.Time)
		if err != nil {
			t.Fatalf("case %q: time: %v", c.Name, err)
		}
		req.Now = now
	}
	if q := r.RootQuorum; q != nil {
		req.RootQuorum = policyset.RootQuorum{UserIDs: q.UserIDs, Threshold: q.Threshold}
	}
	attrs := r.KeywordAttributes()
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		if err := req.SetKeywordAttribute(name, attrs[name]); err != nil {
			t.Fatalf("case %q: request.%s: %v", c.Name, name, err)
		}
	}
	// The table holds requests that can exist, whole: a case whose point
	// needs another is a case about something else.
	if err := req.Conforms(); err != nil {
		t.Fatalf("case %q: %v", c.Name, err)
	}
	if lacks := req.Missing(); lacks != nil {
		t.Fatalf("case %q: by the catalogue, a %s request also carries %s", c.Name, r.Type, strings.Join(lacks, "; "))
	}
	return req
}

// languageValue turns a JSON number into the language's integer.
func languageValue(v any) any {
	if n, ok := v.(json.Number); ok {
		if i, ok := new(big.Int).SetString(n.String(), 10); ok {
			return i
		}
	}
	return v
}

// Mismatch says how d differs from the decision the case wants, or "".
func (c Case) Mismatch(d policyset.Decision) string { return c.Want.mismatch(c, d) }

// EmulatorMismatch is Mismatch against what the emulator decides: the
// case's Emulator.Want where it has one.
func (c Case) EmulatorMismatch(d policyset.Decision) string {
	if c.Emulator != nil {
		return c.Emulator.Want.mismatch(c, d)
	}
	return c.Want.mismatch(c, d)
}

func (want Want) mismatch(c Case, d policyset.Decision) string {
	decidedBy := make([]string, len(d.DecidedBy))
	for i, p := range d.DecidedBy {
		decidedBy[i] = c.Policies[p].Name
	}
	if d.Verdict != want.Verdict || fmt.Sprint(decidedBy) != fmt.Sprint(want.DecidedBy) {
		return fmt.Sprintf("decision %s by %q, want %s by %q", d.Verdict, decidedBy, want.Verdict, want.DecidedBy)
	}
	if len(d.Policies) != len(want.Policies) {
		return fmt.Sprintf("%d policy outcomes, want %d", len(d.Policies), len(want.Policies))
	}
	for i, w := range want.Policies {
		got := d.Policies[i]
		msg := ""
		if got.Err != nil {
			msg = got.Err.Error()
		}
		if w.Name != c.Policies[i].Name || got.Outcome != w.Outcome || (w.Error == "") != (msg == "") || !strings.Contains(msg, w.Error) {
			return fmt.Sprintf("policy %d (%s): %s, error %q; want %s (%s), error containing %q", i, c.Policies[i].Name, got.Outcome, msg,
				w.Outcome, w.Name, w.Error)
		}
	}
	return ""
}

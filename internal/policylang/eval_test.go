package policylang

import (
	"math/big"
	"strings"
	"testing"
	"time"
)

func bigInt(s string) *big.Int {
	v, _ := new(big.Int).SetString(s, 10)
	return v
}

// signingEnv is an EVM signing request by a wallet, approved by two users.
func signingEnv() Env {
	return Env{
		"activity": map[string]any{"type": "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", "kind": "SIGN_TRANSACTION",
			"resource": "PRIVATE_KEY", "action": "SIGN", "params": map[string]any{"type": "TRANSACTION_TYPE_ETHEREUM"}},
		"eth.tx": map[string]any{
			"to":       "0x08d2b0a37f869ff76bacb5bab3278e26ab7067b7",
			"data":     "0xa9059cbb000000000000000000000000a0b86991c6218b36c1d19d4a2e9eb0ce3606eb480000000000000000000000000000000000000000000000000000000000000001",
			"value":    bigInt("1000000000000000000"),
			"chain_id": 8453,
			"contract_call_args": map[string]any{
				"calls": []any{[]any{"0xabc", big.NewInt(0)}, []any{"0xabc", big.NewInt(0)}},
			},
		},
		"wallet": map[string]any{"id": "W", "imported": false, "exported": false, "label": "hot", "tags": []any{}},
		"approvers": []any{
			map[string]any{"id": "u1", "tags": []any{"treasury"}, "email": "a@x", "alias": "a"},
			map[string]any{"id": "u2", "tags": []any{"treasury", "ops"}, "email": "b@x", "alias": "b"},
		},
	}
}

func TestEval(t *testing.T) {
	for _, tc := range []struct {
		f    Field
		src  string
		want bool
	}{
		{FieldCondition, "eth.tx.data[0..10] == '0xa9059cbb'", true},
		{FieldCondition, "eth.tx.data[2..10] == 'a9059cbb'", true},
		{FieldCondition, "eth.tx.data[34..74] == 'a0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'", true},
		{FieldCondition, "eth.tx.data[0] == '0'", true},
		{FieldCondition, "eth.tx.to in ['0x1', '0x08d2b0a37f869ff76bacb5bab3278e26ab7067b7']", true},
		{FieldCondition, "eth.tx.value <= 1000000000000000000 && eth.tx.value > 999999999999999999", true},
		{FieldCondition, "eth.tx.value < 170141183460469231731687303715884105728", true},
		{FieldCondition, "eth.tx.chain_id in [1, 8453]", true},
		{FieldCondition, "eth.tx.chain_id == '8453'", true}, // a quoted number compares as the number
		{FieldCondition, "eth.tx.chain_id != 1", true},
		{FieldCondition, "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN'", true},
		{FieldCondition, "activity.params.type == 'TRANSACTION_TYPE_ETHEREUM'", true},
		{FieldCondition, "!wallet.imported && wallet.label == 'hot'", true},
		{FieldCondition, "wallet.imported || wallet.exported", false},
		{FieldCondition, "eth.tx.contract_call_args['calls'].all(call, call[0] == '0xabc' && call[1] == 0)", true},
		{FieldCondition, "eth.tx.contract_call_args['calls'].count() == 2", true},
		{FieldCondition, "[1, 2, 3][0..2] == [1, 2]", true},
		{FieldCondition, "'abc'[1..3] == 'bc'", true},
		{FieldConsensus, "approvers.count() >= 2", true},
		{FieldConsensus, "approvers.count == 2", true},
		{FieldConsensus, "approvers.filter(u, u.tags.contains('ops')).count() == 1", true},
		{FieldConsensus, "approvers.all(u, u.tags.contains('treasury'))", true},
		{FieldConsensus, "approvers.any(u, u.id == 'u3')", false},
		{FieldConsensus, "approvers.any(user, true)", true},
		{FieldConsensus, "approvers.filter(u, false).all(u, false)", true}, // all of nothing
		{FieldConsensus, "approvers.filter(u, false).any(u, true)", false}, // any of nothing
		{FieldConsensus, "approvers[1].alias == 'b'", true},
		{FieldConsensus, "'ops' in approvers[1].tags", true},
	} {
		p, ds := Compile(tc.src, tc.f)
		if p == nil {
			t.Errorf("%q: %v", tc.src, ds)
			continue
		}
		got, err := p.Eval(signingEnv())
		if err != nil || got != tc.want {
			t.Errorf("%q = %v, %v; want %v", tc.src, got, err, tc.want)
		}
	}
}

// No short-circuit: every operand is evaluated, and an error anywhere is
// the outcome, even where the rest already decides it.
func TestEvalErrors(t *testing.T) {
	for _, tc := range []struct {
		f   Field
		src string
		msg string
	}{
		{FieldCondition, "false && solana.tx.transfers.count() == 1", "MissingKeyword: this request has no solana.tx"},
		{FieldCondition, "true || private_key.id == 'K'", "MissingKeyword: this request has no private_key"},
		// The documentation's own example: a request targets a wallet or a key.
		{FieldCondition, "wallet.id == 'W' || private_key.id == 'K'", "no private_key"},
		{FieldCondition, "activity.params.hash_function == 'HASH_FUNCTION_NO_OP'", "MissingField"},
		{FieldCondition, "eth.tx.contract_call_args['wad'] == 1", "MissingField"},
		{FieldCondition, "eth.tx.data[0..500] == 'x'", "out of range"},
		{FieldCondition, "eth.tx.data[10..2] == 'x'", "out of range"},
		{FieldCondition, "eth.tx.data[500] == 'x'", "out of range"},
		{FieldCondition, "eth.tx.contract_call_args['calls'][5][0] == 'x'", "out of range"},
		{FieldCondition, "eth.tx.contract_call_args['calls'][0][0] == 1", "cannot compare"},
		{FieldCondition, "eth.tx.contract_call_args['calls'][0][1] < eth.tx.contract_call_args['calls'][0][0]", "orders two numbers"},
		{FieldCondition, "eth.tx.contract_call_args['calls'].any(c, c[0])", "not a bool"},
		{FieldConsensus, "approvers.any(u, u.id == 'u1') || approvers.any(u, u.phone == 'x')", "MissingField"},
	} {
		p, ds := Compile(tc.src, tc.f)
		if p == nil {
			t.Errorf("%q: %v", tc.src, ds)
			continue
		}
		_, err := p.Eval(signingEnv())
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q: error %v, want one containing %q", tc.src, err, tc.msg)
		}
	}
}

// Integers beyond the language's range cannot be compared at evaluation.
func TestEvalIntegerRange(t *testing.T) {
	p, _ := Compile("eth.tx.value > 0", FieldCondition)
	huge := new(big.Int).Lsh(big.NewInt(1), 256)
	if _, err := p.Eval(Env{"eth.tx": map[string]any{"value": huge}}); err == nil || !strings.Contains(err.Error(), "outside the range") {
		t.Errorf("2^256: %v", err)
	}
	p, _ = Compile("eth.eip_712.domain.chain_id == 115792089237316195423570985008687907853269984665640564039457584007913129639935", FieldCondition)
	maxU := new(big.Int).Sub(huge, big.NewInt(1))
	got, err := p.Eval(Env{"eth.eip_712": map[string]any{"domain": map[string]any{"chain_id": maxU}}})
	if err != nil || !got {
		t.Errorf("2^256-1: %v %v", got, err)
	}
}

func TestEvalTime(t *testing.T) {
	// Monday 2026-03-02 14:30 UTC is 09:30 in New York (EST, UTC-5).
	monday := time.Date(2026, 3, 2, 14, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		src  string
		now  time.Time
		want bool
	}{
		{"time.now >= Timestamp('2026-03-01T00:00:00Z') && time.now < Timestamp('2026-04-01T00:00:00Z')", monday, true},
		{"time.now < Timestamp('2026-03-02T14:30:00z')", monday, false},
		{"time.now == Timestamp('2026-03-02T14:30:00-00:00')", monday, true},
		{"CronSpan('0 9 * * 1-5', '8h', 'America/New_York')", monday, true},
		{"CronSpan('0 9 * * 1-5', '30m', 'America/New_York')", monday, false}, // 09:00-09:30, half-open
		{"CronSpan('0 9 * * 1-5', '31m', 'America/New_York')", monday, true},
		{"CronSpan('0 9 * * 0,6', '8h', 'America/New_York')", monday, false},
		{"!CronSpan('0 9 * * 0,6', '8h', 'America/New_York')", monday, true},
		// Both day fields restricted: either matches (the 2nd is a Monday).
		{"CronSpan('0 14 15 * 1', '1h', 'UTC')", monday, true},
		{"CronSpan('0 14 15 * 2', '1h', 'UTC')", monday, false},
		// Only the day of month restricted: it must match.
		{"CronSpan('0 14 2 3 *', '1h', 'UTC')", monday, true},
		{"CronSpan('0 14 3 3 *', '1h', 'UTC')", monday, false},
		// A window that began the day before.
		{"CronSpan('0 22 * * 0', '1d', 'UTC')", monday, true},
		{"CronSpan('0 0 1 1 *', '7d', 'UTC')", monday, false},
	} {
		p, ds := Compile(tc.src, FieldTime)
		if p == nil {
			t.Errorf("%q: %v", tc.src, ds)
			continue
		}
		got, err := p.Eval(Env{"time.now": tc.now})
		if err != nil || got != tc.want {
			t.Errorf("%q at %s = %v, %v; want %v", tc.src, tc.now, got, err, tc.want)
		}
	}
	p, _ := Compile("CronSpan('* * * * *', '1h', 'UTC')", FieldTime)
	if _, err := p.Eval(Env{}); err == nil || !strings.Contains(err.Error(), "time.now") {
		t.Errorf("CronSpan without time.now: %v", err)
	}
}

// Reads tells which keywords a program reads: the lockout guard and the
// policy_decision function need to know whether a policy reads time.now,
// which CronSpan reads without naming it.
func TestProgramReads(t *testing.T) {
	for _, tc := range []struct {
		src     string
		f       Field
		keyword string
		want    bool
	}{
		{"time.now < Timestamp('2030-01-01T00:00:00Z')", FieldTime, "time.now", true},
		{"CronSpan('0 9 * * 1-5', '8h', 'UTC')", FieldTime, "time.now", true},
		{"true", FieldTime, "time.now", false},
		{"approvers.any(u, u.id == 'a')", FieldConsensus, "approvers", true},
		{"approvers.any(u, u.id == 'a')", FieldConsensus, "credentials", false},
		{"activity.resource == 'POLICY'", FieldCondition, "activity", true},
		{"activity.resource == 'POLICY'", FieldCondition, "private_key", false},
	} {
		p, ds := Compile(tc.src, tc.f)
		if p == nil {
			t.Fatalf("%s: %v", tc.src, ds)
		}
		if got := p.Reads(tc.keyword); got != tc.want {
			t.Errorf("%s: Reads(%s) = %v, want %v", tc.src, tc.keyword, got, tc.want)
		}
	}
}

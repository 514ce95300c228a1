package policylang

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// typeOf checks src in field f and returns its type and findings.
func typeOf(t *testing.T, src string, f Field) (*Type, Diagnostics) {
	t.Helper()
	n, err := Parse(src)
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	c := &checker{field: f, origin: map[Node]string{}, binders: map[string]bool{}}
	collectBinders(n, c.binders)
	return c.check(n), c.diags
}

// boolOf turns an expression of type t into a bool expression that uses it.
func boolOf(expr string, t *Type) string {
	switch t.Kind {
	case KindBool:
		return expr
	case KindInt, KindUint:
		return expr + " >= 0"
	case KindString:
		return expr + " == '<x>'" // a placeholder: no value-set warning
	case KindList:
		return expr + ".count() >= 0"
	case KindMap:
		return expr + "['k'] == " + expr + "['k']"
	}
	return expr + " == " + expr
}

// Each keyword is accepted in its own field, with its documented type, and
// refused in the others as a keyword of another field.
func TestCheckKeywordsPerField(t *testing.T) {
	for _, f := range fields {
		for kw, want := range cat.keywords[f] {
			got, ds := typeOf(t, kw, f)
			if len(ds) != 0 || got.String() != want.String() {
				t.Errorf("%s in %s: type %s, diagnostics %v; want %s and none", kw, f, got, ds, want)
			}
			expr := boolOf(kw, want)
			for _, other := range fields {
				_, ds := Compile(expr, other)
				switch {
				case other == f && len(ds) != 0:
					t.Errorf("%q in %s: %v", expr, other, ds)
				case other != f && (len(ds) == 0 || ds[0].Code != CodeWrongField):
					t.Errorf("%q in %s: %v, want a wrong-field error", expr, other, ds)
				}
			}
		}
	}
	if n := len(cat.keywords[FieldCondition]); n != 13 {
		t.Errorf("condition has %d keywords, the reference documents 13 (secret included)", n)
	}
}

// paths finds, for every catalogued struct, an expression of that type
// reached from a keyword (through fields and list elements).
func paths() map[string]string {
	out := map[string]string{}
	type item struct {
		expr string
		t    *Type
		f    Field
	}
	var queue []item
	for _, f := range fields {
		for kw, t := range cat.keywords[f] {
			queue = append(queue, item{kw, t, f})
		}
	}
	slices.SortFunc(queue, func(a, b item) int { return strings.Compare(a.expr, b.expr) })
	fieldOf := map[string]Field{}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		switch it.t.Kind {
		case KindList:
			queue = append(queue, item{it.expr + "[0]", it.t.Elem, it.f})
		case KindStruct:
			if _, seen := out[it.t.Struct]; seen {
				continue
			}
			out[it.t.Struct] = it.expr
			fieldOf[it.t.Struct] = it.f
			for _, name := range structFields(it.t.Struct) {
				queue = append(queue, item{it.expr + "." + name, cat.structs[it.t.Struct][name], it.f})
			}
		}
	}
	for st := range out {
		out[st] = string(fieldOf[st]) + " " + out[st]
	}
	return out
}

// Every field of every documented struct is accepted with its documented
// type, and every struct is reachable from some keyword.
func TestCheckEveryStructField(t *testing.T) {
	reach := paths()
	for st, fs := range cat.structs {
		where, ok := reach[st]
		if !ok {
			t.Errorf("struct %s is not reachable from any keyword", st)
			continue
		}
		field, base, _ := strings.Cut(where, " ")
		for name, want := range fs {
			expr := base + "." + name
			got, ds := typeOf(t, expr, Field(field))
			if len(ds) != 0 || got.String() != want.String() {
				t.Errorf("%s (%s): type %s, diagnostics %v; want %s", expr, field, got, ds, want)
			}
			if _, ds := Compile(boolOf(expr, want), Field(field)); len(ds) != 0 {
				t.Errorf("%s: %v", boolOf(expr, want), ds)
			}
		}
	}
	if len(cat.structs) < 40 {
		t.Errorf("only %d structs catalogued", len(cat.structs))
	}
}

// Every documented value is accepted silently; a misspelt one is a warning
// that suggests the documented value.
func TestCheckValueSets(t *testing.T) {
	reach := paths()
	for key, values := range cat.values {
		st, name, _ := strings.Cut(key, ".")
		field, base, _ := strings.Cut(reach[st], " ")
		expr := base + "." + name
		for _, v := range values {
			if _, ds := Compile(fmt.Sprintf("%s == '%s'", expr, v), Field(field)); len(ds) != 0 {
				t.Errorf("%s == '%s': %v", expr, v, ds)
			}
		}
		typo := values[0] + "X"
		if values[0] == "" {
			typo = "x"
		}
		for _, src := range []string{fmt.Sprintf("%s == '%s'", expr, typo), fmt.Sprintf("'%s' != %s", typo, expr), fmt.Sprintf("%s in ['%s']", expr, typo)} {
			_, ds := Compile(src, Field(field))
			if len(ds) != 1 || ds[0].Code != CodeValueSet || ds[0].Severity != SeverityWarning {
				t.Errorf("%s: %v, want one value-set warning", src, ds)
			}
		}
	}
	_, ds := Compile("activity.action == 'SIGNING'", FieldCondition)
	if len(ds) != 1 || !strings.Contains(ds[0].Message, "did you mean SIGN?") {
		t.Errorf("SIGNING: %v", ds)
	}
	// Placeholders of the documentation's examples are not values.
	if _, ds := Compile("activity.type == '<ACTIVITY_TYPE>'", FieldCondition); len(ds) != 0 {
		t.Errorf("placeholder: %v", ds)
	}
	if n := len(cat.values["Activity.type"]); n != 162 {
		t.Errorf("Activity.type has %d values, want the 162 of the ActivityType enum", n)
	}
}

// The five list methods: arity, binder scoping, predicate and result types.
func TestCheckFunctions(t *testing.T) {
	for _, tc := range []struct {
		f    Field
		src  string
		code Code // "" for accepted without findings
	}{
		{FieldConsensus, "approvers.any(u, u.id == 'a')", ""},
		{FieldConsensus, "approvers.all(u, u.tags.contains('t'))", ""},
		{FieldConsensus, "approvers.filter(u, u.email == 'e').count() >= 2", ""},
		{FieldConsensus, "approvers.count() == 1", ""},
		{FieldConsensus, "approvers.any(user, true)", ""},
		{FieldConsensus, "credentials.any(c, c.type == 'CREDENTIAL_TYPE_API_KEY_P256') && approvers.any(u, u.alias == 'a')", ""},
		// Nested binders see each other; an inner binder shadows.
		{FieldCondition, "solana.tx.spl_transfers.all(t, t.signers.any(s, s == t.owner))", ""},
		{FieldCondition, "wallets.any(wallet, wallet.imported)", ""},
		{FieldCondition, "wallets.any(w, w.label == 'a') && wallet.id == 'b'", ""},
		// Untyped ABI arguments accept any access.
		{FieldCondition, "eth.tx.contract_call_args['calls'].all(call, call[0] == 'a' && call[1] == 0)", ""},
		{FieldConsensus, "approvers.any(u)", CodeArity},
		{FieldConsensus, "approvers.count(u, true) == 1", CodeArity},
		{FieldConsensus, "approvers[0].tags.contains()", CodeArity},
		{FieldConsensus, "approvers[0].tags.contains('a', 'b')", CodeArity},
		{FieldConsensus, "approvers.filter(u).count() > 1", CodeArity},
		{FieldConsensus, "approvers.any", CodeArity},
		{FieldConsensus, "approvers.any('u', true)", CodeUnbound},
		{FieldConsensus, "approvers.any(u, true) && u.id == 'a'", CodeUnbound},
		{FieldConsensus, "approvers.any(u, u.id)", CodeType},
		{FieldConsensus, "approvers.filter(u, 1).count() > 0", CodeType},
		{FieldConsensus, "approvers[0].tags.contains(1)", CodeType},
		{FieldConsensus, "approvers[0].id.contains('a')", CodeType},
		{FieldConsensus, "approvers.size() > 1", CodeUnknownFunction},
		{FieldConsensus, "size(approvers) > 1", CodeUnknownFunction},
		{FieldConsensus, "approvers.exists(u, true)", CodeUnknownFunction},
		{FieldConsensus, "approvers.exists_one(u, true)", CodeUnknownFunction},
		{FieldCondition, "eth.tx.data[138..202].hex_to_uint() > 0", CodeUnknownFunction},
		{FieldCondition, "has(eth.tx.to)", CodeUnknownFunction},
		{FieldConsensus, "approvers.count == 1", CodeBareCount},
		// Time constructors belong to the time field and take checked literals.
		{FieldTime, "time.now >= Timestamp('2026-03-01T00:00:00Z') && time.now < Timestamp('2026-04-01T00:00:00+00:00')", ""},
		{FieldTime, "!CronSpan('0 9 * * 1-5', '8h', 'America/New_York')", ""},
		{FieldTime, "CronSpan('0,30 0-6 1 1-12 *', '1d12h', 'UTC')", ""},
		{FieldCondition, "time.now > Timestamp('2026-01-01T00:00:00Z')", CodeWrongField},
		{FieldConsensus, "CronSpan('* * * * *', '1h', 'UTC')", CodeWrongField},
		{FieldTime, "Timestamp() < time.now", CodeArity},
		{FieldTime, "CronSpan('0 9 * * 1-5', '8h')", CodeArity},
		{FieldTime, "time.now > Timestamp('2026-01-01T00:00:00+02:00')", CodeBadLiteral},
		{FieldTime, "time.now > Timestamp('yesterday')", CodeBadLiteral},
		{FieldTime, "CronSpan('*/5 * * * *', '1h', 'UTC')", CodeBadLiteral},
		{FieldTime, "CronSpan('@daily', '1h', 'UTC')", CodeBadLiteral},
		{FieldTime, "CronSpan('0 9 * * MON', '1h', 'UTC')", CodeBadLiteral},
		{FieldTime, "CronSpan('0 0 9 * * 1', '1h', 'UTC')", CodeBadLiteral},
		{FieldTime, "CronSpan('0 9 * * 7', '1h', 'UTC')", CodeBadLiteral},
		{FieldTime, "CronSpan('0 9 * * *', '1.5h', 'UTC')", CodeBadLiteral},
		{FieldTime, "CronSpan('0 9 * * *', '30s', 'UTC')", CodeBadLiteral},
		{FieldTime, "CronSpan('0 9 * * *', '0m', 'UTC')", CodeBadLiteral},
		{FieldTime, "CronSpan('0 9 * * *', '8d', 'UTC')", CodeBadLiteral},
		{FieldTime, "CronSpan('0 9 * * *', '99999999999999999999d', 'UTC')", CodeBadLiteral},
		{FieldTime, "CronSpan('0 9 * * *', '1h', 'Mars/Base')", CodeBadLiteral},
		{FieldTime, "CronSpan('0 9 * * *', '1h', 'Local')", CodeBadLiteral},
		{FieldTime, "time.now > Timestamp(time.now)", CodeType},
	} {
		_, ds := Compile(tc.src, tc.f)
		if tc.code == "" {
			if len(ds) != 0 {
				t.Errorf("%s %q: %v, want none", tc.f, tc.src, ds)
			}
			continue
		}
		if len(ds) == 0 || ds[0].Code != tc.code {
			t.Errorf("%s %q: %v, want %s first", tc.f, tc.src, ds, tc.code)
		}
	}
}

// The operand types of every operator, and the bool of the whole.
func TestCheckOperators(t *testing.T) {
	for _, tc := range []struct {
		src  string
		code Code
	}{
		{"eth.tx.value > 1000 && eth.tx.to == 'a'", ""},
		{"eth.tx.chain_id in [1, 137]", ""},
		{"eth.tx.to in ['a', 'b'] || eth.tx.from != 'c'", ""},
		{"eth.eip_712.domain.chain_id == 1", ""},                        // uint with int
		{"eth.tx.value <= 170141183460469231731687303715884105728", ""}, // int with uint
		{"eth.eip_712.domain.chain_id < 115792089237316195423570985008687907853269984665640564039457584007913129639935", ""},
		{"wallet.imported && !wallet.exported", ""},
		{"wallet.imported == true", ""},
		{"eth.tx.data[0..10] == '0xa9059cbb'", ""},
		{"eth.tx.data[2] == 'a'", ""},
		{"private_key.tags[0..2] == ['a', 'b']", ""},
		{"'a' in private_key.tags", ""},
		{"eth.tx.to == 1", CodeType},
		{"eth.tx.value == 'ten'", CodeType},
		{"eth.tx.to < 'b'", CodeType},
		{"'a' < 'b'", CodeType},
		{"wallet.imported > false", CodeType},
		{"eth.tx.value && true", CodeType},
		{"!eth.tx.to", CodeType},
		{"eth.tx.to in 'abc'", CodeType},
		{"1 in ['a']", CodeType},
		{"eth.tx.data['x'] == 'a'", CodeType},
		{"private_key.tags['x'] == 'a'", CodeType},
		{"eth.tx.contract_call_args[0] == 1", CodeType},
		{"eth.tx.value[0] == 1", CodeType},
		{"eth.tx.value[0..1] == 1", CodeType},
		{"eth.tx.data['a'..2] == 'x'", CodeType},
		{"private_key.tags == 1", CodeType},
		{"[1, 'a'] == [1]", CodeType},
		{"eth.tx.to.length == 1", CodeType},
		{"private_key.tags.first == 'a'", CodeType},
		{"eth.tx.value >= 115792089237316195423570985008687907853269984665640564039457584007913129639936", CodeBadLiteral},
		{"eth.tx.to", CodeNotBool},
		{"'abc'", CodeNotBool},
		{"1", CodeNotBool},
		{"solana.tx.transfers.filter(t, true)", CodeNotBool},
		{"eth.tx.chain_id == '8453'", CodeQuotedNumber},
		{"eth.tx.chain_id >= '<CHAIN_ID>'", CodeQuotedNumber},
		{"eth.eip_712.message.outputContract == 'a'", CodeMapDot},
		{"eth.tx.gasPrice > 0", CodeUnknownField},
		{"wallet.id == 'W' || private_key.id == 'K'", CodeWalletOrKey},
		{"activty.type == 'x'", CodeUnknownKeyword},
		{"eth.transaction.to == 'x'", CodeUnknownKeyword},
		{"eth == 'x'", CodeUnknownKeyword},
		{"sol.tx.transfers.count() == 1", CodeUnknownKeyword},
		{"user.id == 'x'", CodeUnknownKeyword},
	} {
		_, ds := Compile(tc.src, FieldCondition)
		switch {
		case tc.code == "" && len(ds) != 0:
			t.Errorf("%q: %v, want none", tc.src, ds)
		case tc.code != "" && (len(ds) == 0 || ds[0].Code != tc.code):
			t.Errorf("%q: %v, want %s first", tc.src, ds, tc.code)
		}
	}
}

// Integer literals: int up to 2^127-1, uint above it up to 2^256-1.
func TestCheckIntegerLiterals(t *testing.T) {
	for src, want := range map[string]string{
		"170141183460469231731687303715884105727":                                        "int",
		"170141183460469231731687303715884105728":                                        "uint",
		"115792089237316195423570985008687907853269984665640564039457584007913129639935": "uint",
	} {
		if got, ds := typeOf(t, src, FieldCondition); got.String() != want || len(ds) != 0 {
			t.Errorf("%s: %s %v, want %s", src, got, ds, want)
		}
	}
}

// A mistake is reported once, not again by every node above it.
func TestCheckReportsAMistakeOnce(t *testing.T) {
	_, ds := Compile("(activty.type == 'a' && activty.kind == 'b') || approvers.count() > 1", FieldCondition)
	var codes []Code
	for _, d := range ds {
		codes = append(codes, d.Code)
	}
	want := []Code{CodeUnknownKeyword, CodeUnknownKeyword, CodeWrongField}
	if !slices.Equal(codes, want) {
		t.Errorf("codes %v, want %v: %v", codes, want, ds)
	}
	if !strings.Contains(ds[0].Message, "did you mean activity?") {
		t.Errorf("no suggestion: %s", ds[0].Message)
	}
}

func TestLookupActivity(t *testing.T) {
	a, ok := LookupActivity("ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG")
	if !ok || a.Kind != "CREATE_PRIVATE_KEY_TAG" || a.Resource != "PRIVATE_KEY" || a.Action != "CREATE" {
		t.Errorf("CREATE_PRIVATE_KEY_TAG: %+v %v", a, ok)
	}
	a, ok = LookupActivity("ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME")
	if !ok || a.Kind != "" || a.Resource != "" || !a.RootQuorumOnly {
		t.Errorf("a root-quorum-only activity has no kind: %+v %v", a, ok)
	}
	if a, _ := LookupActivity("ACTIVITY_TYPE_CREATE_POLICIES"); a.RootQuorumOnly {
		t.Errorf("CREATE_POLICIES is governed by policies: %+v", a)
	}
	if _, ok := LookupActivity("ACTIVITY_TYPE_NOPE"); ok {
		t.Error("an unknown type was found")
	}
}

// The catalogue refuses what it cannot read, so that a mistake in it is a
// failing test and not a silently missing field.
func TestCatalogueRefusesMistakes(t *testing.T) {
	for _, text := range []string{
		"keyword nowhere x string",
		"keyword condition x list<string",
		"field User string",
		"field User.x Missing",
		"values User.nope a b",
		"activity ACTIVITY_TYPE_X KIND RES",
		"rootquorum ACTIVITY_TYPE_UNDECLARED",
		"something else",
	} {
		if _, err := loadCatalogue(text + "\nfield User.id string\n"); err == nil {
			t.Errorf("loadCatalogue accepted %q", text)
		}
	}
}

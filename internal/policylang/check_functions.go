package policylang

// function checks a global call: Timestamp and CronSpan, the time field's
// constructors. Their arguments must be string literals, whose content is
// checked here.
func (c *checker) function(n *Call) *Type {
	want, known := map[string]int{"Timestamp": 1, "CronSpan": 3}[n.Name]
	if !known {
		hint := "the language has the list methods any, all, filter, contains and count, and, in the time field, Timestamp and CronSpan"
		if h, ok := notMethods[n.Name]; ok {
			hint = h
		}
		c.errorf(CodeUnknownFunction, n.NameSp, "%s() is not a function of the policy language: %s%s",
			n.Name, hint, didYouMean(n.Name, []string{"Timestamp", "CronSpan"}))
		return tAny
	}
	result := tTimestamp
	if n.Name == "CronSpan" {
		result = tBool
	}
	if c.field != FieldTime {
		c.errorf(CodeWrongField, n.NameSp, "%s() belongs to the time field and cannot be used in %s", n.Name, c.field)
		return result
	}
	if len(n.Args) != want {
		c.errorf(CodeArity, n.NameSp, "%s() takes %d argument%s, not %d: %s", n.Name, want, plural(want), len(n.Args), functionUsage[n.Name])
		return result
	}
	lits := make([]string, len(n.Args))
	for i, a := range n.Args {
		lit, ok := a.(*StringLit)
		if !ok {
			c.check(a)
			c.errorf(CodeType, a.Span(), "the arguments of %s() are string literals: %s", n.Name, functionUsage[n.Name])
			return result
		}
		lits[i] = lit.Value
	}
	if n.Name == "Timestamp" {
		if _, err := parseTimestamp(lits[0]); err != nil {
			c.errorf(CodeBadLiteral, n.Args[0].Span(), "%v", err)
		}
		return result
	}
	if _, errs := parseCronSpan(lits[0], lits[1], lits[2]); errs != nil {
		for i, err := range errs {
			if err != nil {
				c.errorf(CodeBadLiteral, n.Args[i].Span(), "%v", err)
			}
		}
	}
	return result
}

var functionUsage = map[string]string{
	"Timestamp": "Timestamp('2026-03-01T00:00:00Z'), a UTC time in RFC 3339",
	"CronSpan":  "CronSpan('0 9 * * 1-5', '8h', 'America/New_York'): a cron of 5 fields, a duration of d/h/m up to 7 days, an IANA zone",
}

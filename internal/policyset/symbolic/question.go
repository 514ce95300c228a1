package symbolic

import (
	"fmt"
	"sync/atomic"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// question is one activity type's circuit over the policies a question
// involves: every policy version gets its outcome literals, and sets of
// versions are then verdicts over them.
type question struct {
	e     *encoder
	typ   string
	pols  []*polLits
	forms []policyForms
	// atomPaths are the generic paths the atoms of the changed policies
	// compare: the witness's integers are moved to a constant there.
	atomPaths map[string]bool
}

// polLits are one policy version's outcome, as policyset.Evaluator gives
// it: an error in any field is OUTCOME_ERROR, which counts for nothing.
type polLits struct {
	p                 policyset.Policy
	err               lit
	deny, allow, cons lit // OUTCOME_DENY_EXPLICIT, OUTCOME_ALLOW, OUTCOME_REQUIRES_CONSENSUS
	// applies: the outcome is one of those three (for "never applies").
	applies lit
	overs   []string // the constructs it over-approximates
}

type policyForms struct {
	p                 policyset.Policy
	cond, cons, timeF *form
	broken            bool // an expression the language refuses: always an error
}

// readPolicy reads a policy's expressions, once per text: forms are never
// changed once read, and each policy numbers its own variables (a
// variable is bound only inside its quantifier, so two policies' "$1"
// never meet).
func readPolicy(p policyset.Policy, _ *int, strict bool) policyForms {
	key := fmt.Sprint(strict) + "\x00" + p.Condition + "\x00" + p.Consensus + "\x00" + p.Time
	pf := formCache.Get(key, func() policyForms { return readPolicyForms(p, new(int), strict) })
	pf.p = p
	return pf
}

// maxCachedForms bounds the cache of read policies, as policyset bounds
// its compiled expressions.
const maxCachedForms = 1 << 14

var formCache = policyset.NewMemo[string, policyForms](maxCachedForms)

func readPolicyForms(p policyset.Policy, next *int, strict bool) policyForms {
	pf := policyForms{p: p}
	for _, x := range []struct {
		f    policylang.Field
		src  string
		into **form
	}{{policylang.FieldCondition, p.Condition, &pf.cond}, {policylang.FieldConsensus, p.Consensus, &pf.cons},
		{policylang.FieldTime, p.Time, &pf.timeF}} {
		if x.src == "" {
			continue
		}
		prog, d := policyset.Compile(x.f, x.src)
		if d != nil {
			pf.broken = true
			continue
		}
		// The compiled program's tree: the text is parsed once.
		*x.into = readExpr(x.f, prog.Root(), next, strict)
	}
	return pf
}

// questionsBuilt counts the circuits built, for tests and the bench.
var questionsBuilt atomic.Int64

// QuestionsBuilt is how many circuits this process has built: what a
// question costs is mostly building its circuit.
func QuestionsBuilt() int64 { return questionsBuilt.Load() }

// newQuestion compiles the policies for requests of typ whose approvers
// are never root users.
func newQuestion(typ string, policies []policyset.Policy, rootIDs []string) *question {
	return newQuestionStrict(typ, policies, rootIDs, false)
}

// newQuestionStrict: strict reads a field the catalogue does not know as
// the engine evaluates it, an error.
func newQuestionStrict(typ string, policies []policyset.Policy, rootIDs []string, strict bool) *question {
	questionsBuilt.Add(1)
	next := 0
	forms := make([]policyForms, len(policies))
	d := newDomains()
	for i, p := range policies {
		forms[i] = readPolicy(p, &next, strict)
		for _, f := range []*form{forms[i].cond, forms[i].cons, forms[i].timeF} {
			d.addForm(f)
		}
	}
	// A root user's id is a class of its own, which no approver takes.
	d.strs["approvers[*].id"] = append(d.strs["approvers[*].id"], rootIDs...)
	d.strs["approvers[*].id"] = append(d.strs["approvers[*].id"], d.strs["credentials[*].user_id"]...)
	// The params a keyword's presence turns on are cut at the values
	// it names.
	model := modelOf(typ)
	for _, rule := range model.Keywords {
		if rule.When != nil {
			p := "activity.params." + rule.When.Param
			d.strs[p] = append(d.strs[p], rule.When.Values...)
		}
	}
	// A credential's type is one of the catalogue's, as policy_decision
	// takes it.
	d.strs["credentials[*].type"] = append(d.strs["credentials[*].type"], policylang.DocumentedValues("Credential.type")...)
	d.finish()
	q := &question{e: newEncoder(typ, d, model, rootIDs), typ: typ}
	q.forms = forms
	// A version asked about twice (a question's changed policies are also
	// in its sets) is encoded once: its literals depend on its effect and
	// expressions alone.
	encoded := make(map[string]*polLits, len(forms))
	for _, pf := range forms {
		k := pf.p.DecisionKey()
		pl, ok := encoded[k]
		if !ok {
			pl = q.encodePolicy(pf)
			encoded[k] = pl
		}
		same := *pl
		same.p = pf.p
		q.pols = append(q.pols, &same)
	}
	q.e.classCounts()
	return q
}

func (q *question) encodePolicy(pf policyForms) *polLits {
	c := q.e.c
	overs := map[string]bool{}
	q.e.overs = overs
	val := func(f *form) value {
		if f == nil {
			return value{litTrue, litFalse}
		}
		return q.e.form(f)
	}
	cond, cons, tm := val(pf.cond), val(pf.cons), val(pf.timeF)
	pl := &polLits{p: pf.p, err: c.or(cond.err, cons.err, tm.err)}
	if pf.broken {
		pl.err = litTrue
	}
	live := c.and(-pl.err, cond.v, tm.v)
	if pf.p.Effect == client.EffectDeny {
		pl.deny = c.and(live, cons.v)
		pl.allow, pl.cons = litFalse, litFalse
		pl.applies = pl.deny
	} else {
		pl.deny = litFalse
		pl.allow = c.and(live, cons.v)
		pl.cons = c.and(live, -cons.v)
		pl.applies = live
	}
	for why := range overs {
		pl.overs = append(pl.overs, why)
	}
	return pl
}

// member is one policy of a set: a version, or (permissive) whichever of
// two versions allows more, per request (the controls' most permissive
// state).
type member struct {
	a, b *polLits
}

func (m member) lits(c *circuit) (deny, allow, cons lit) {
	if m.b == nil {
		return m.a.deny, m.a.allow, m.a.cons
	}
	// allow > consensus > not applicable, error, time-inactive > deny.
	allow = c.or(m.a.allow, m.b.allow)
	cons = c.and(c.or(m.a.cons, m.b.cons), -allow)
	deny = c.and(m.a.deny, m.b.deny)
	return deny, allow, cons
}

// verdicts are the literals of a set's four verdicts, exactly one true.
type verdicts map[string]lit

// verdict decides a set as policyset.DecideTally does for approvers who
// are not root users: deny, allow, consensus, implicit deny.
func (q *question) verdict(set []member) verdicts {
	c := q.e.c
	var ds, as, cs []lit
	for _, m := range set {
		d, a, k := m.lits(c)
		ds, as, cs = append(ds, d), append(as, a), append(cs, k)
	}
	d, a, k := c.or(ds...), c.or(as...), c.or(cs...)
	return verdicts{
		client.OutcomeDenyExplicit:      d,
		client.OutcomeAllow:             c.and(-d, a),
		client.OutcomeRequiresConsensus: c.and(-d, -a, k),
		client.OutcomeDenyImplicit:      c.and(-d, -a, -k),
	}
}

// Verdicts in the order rows show them.
var verdictOrder = []string{client.OutcomeAllow, client.OutcomeRequiresConsensus, client.OutcomeDenyExplicit, client.OutcomeDenyImplicit}

// alone is the literal that the requester is the only approver.
func (q *question) alone() lit {
	sl := q.e.slots("approvers", "approvers")
	if len(sl.active) < 2 {
		return litTrue
	}
	return -sl.active[1]
}

// twoSets are the verdicts of the question's first nb policies (before)
// and of the nb..nb+na that follow them (after).
func (q *question) twoSets(nb, na int) (before, after verdicts) {
	var bs, as []member
	for _, p := range q.pols[:nb] {
		bs = append(bs, member{a: p})
	}
	for _, p := range q.pols[nb : nb+na] {
		as = append(as, member{a: p})
	}
	return q.verdict(bs), q.verdict(as)
}

package provider

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
)

// TestAccProviderRequestBudget plans and applies 100 policies with
// max_requests_per_second = 5, then plans again (empty) and destroys
// them, and checks the times at which the emulator saw every request of
// every command (plans, refreshes, apply, destroy).
//
// The bound. Each provider process has one token bucket of rate r = 5/s
// holding b = 1 token. A bucket starts full and gains r tokens a second,
// and each request takes one, so within any closed stretch of T seconds a
// process is granted at most b + r·T requests: the token it may hold at
// the start, and those earned during the stretch. Terraform runs several
// provider processes per command in turn (here, one in-process provider
// instance per CLI command, whose walks share its budget, see
// processBudget), never two at once: the stretches that k of them spend
// inside one window of 1 s add up to at most 1 s, so that window holds at
// most r·1 s + k·b = 5 + k arrivals, and 6 for any one process. Requests
// arrive a little after their grant; the bound holds for arrivals as long
// as that delay varies by less than one token's interval (1/r = 200 ms),
// which a loopback request does by far.
//
// Without the budget, the same run sends its 100 creates at Terraform's
// parallelism of 10, and windows hold dozens.
func TestAccProviderRequestBudget(t *testing.T) {
	const perSecond, burst, policies = 5, 1, 100
	e := newAccEmulator(t)
	// When each provider instance started: an instance serves one CLI
	// command, and its requests arrive before the next one starts.
	var mu sync.Mutex
	var starts []time.Time
	factories := map[string]func() (tfprotov6.ProviderServer, error){
		"custody": func() (tfprotov6.ProviderServer, error) {
			mu.Lock()
			defer mu.Unlock()
			starts = append(starts, time.Now())
			return NewProtocol6Server("test"), nil
		},
	}
	config := batchedPolicies(e, policies, fmt.Sprintf("max_requests_per_second = %d", perSecond))
	began := time.Now()
	resource.Test(t, resource.TestCase{
		PreCheck:                 func() { testAccPreCheck(t) },
		ProtoV6ProviderFactories: factories,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("custody_policy.many[99]", plancheck.ResourceActionCreate)},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
			// In process: a request of the test's own would count.
			Check: func(*terraform.State) error {
				if n := e.srv.RequestCounts()["submit/create_policies"]; n != policies {
					return fmt.Errorf("%d create_policies submits, want one per policy (%d)", n, policies)
				}
				return nil
			},
		}},
	})
	took := time.Since(began)
	arrivals := e.srv.RequestArrivals()
	if n := e.srv.RequestCounts()["submit/delete_policies"]; n != policies {
		t.Errorf("%d delete_policies submits, want one per policy (%d)", n, policies)
	}
	if len(arrivals) < 2*policies {
		t.Fatalf("%d requests in all, want at least the %d creates and deletes", len(arrivals), 2*policies)
	}
	mu.Lock()
	instances := slices.Clone(starts)
	mu.Unlock()
	w := worstWindow(t, arrivals, instances, time.Second)
	if w.count > perSecond+burst*w.instances {
		t.Errorf("%d requests arrived within 1 s (from %s), by %d provider instance(s): more than %d + %d×%d",
			w.count, w.from.Format("15:04:05.000"), w.instances, perSecond, burst, w.instances)
	}
	for _, c := range perInstance(arrivals, instances) {
		if c.worst > perSecond+burst {
			t.Errorf("provider instance %d: %d requests within 1 s, more than %d + %d", c.instance, c.worst, perSecond, burst)
		}
		if c.n > 1 {
			t.Logf("provider instance %d: %d requests in %.2f s: %.2f a second after the first; at most %d within any 1 s",
				c.instance, c.n, c.span.Seconds(), float64(c.n-1)/c.span.Seconds(), c.worst)
		}
	}
	t.Logf("%d requests by %d provider instances in %.1f s; the busiest 1 s window held %d (bound %d + %d×%d instance(s))",
		len(arrivals), len(instances), took.Seconds(), w.count, perSecond, burst, w.instances)
}

// window is the closed stretch of one length, starting at an arrival,
// that holds the most arrivals.
type window struct {
	from      time.Time
	count     int
	instances int // how many provider instances sent them
}

// instanceOf is the index of the last instance that started at or before
// at: the one that sent a request arriving then.
func instanceOf(t *testing.T, starts []time.Time, at time.Time) int {
	t.Helper()
	i := -1
	for j, s := range starts {
		if !s.After(at) {
			i = j
		}
	}
	if i < 0 {
		t.Fatalf("a request arrived at %s, before any provider instance started", at.Format("15:04:05.000"))
	}
	return i
}

// worstWindow is the window of length d with the most arrivals (the
// busiest one starts at an arrival), ties broken by fewer instances.
func worstWindow(t *testing.T, arrivals []emulator.Arrival, starts []time.Time, d time.Duration) window {
	t.Helper()
	var worst window
	for i, a := range arrivals {
		senders := map[int]bool{}
		n := 0
		for _, b := range arrivals[i:] {
			if b.At.Sub(a.At) > d {
				break
			}
			n++
			senders[instanceOf(t, starts, b.At)] = true
		}
		// Judged against its own bound: the window furthest over it.
		if n-len(senders) > worst.count-worst.instances || worst.count == 0 {
			worst = window{from: a.At, count: n, instances: len(senders)}
		}
	}
	return worst
}

// instanceArrivals is what one provider instance sent.
type instanceArrivals struct {
	instance, n, worst int
	span               time.Duration
}

// perInstance groups the arrivals by the instance that sent them, with
// each group's busiest second.
func perInstance(arrivals []emulator.Arrival, starts []time.Time) []instanceArrivals {
	groups := map[int][]emulator.Arrival{}
	for _, a := range arrivals {
		i := 0
		for j, s := range starts {
			if !s.After(a.At) {
				i = j
			}
		}
		groups[i] = append(groups[i], a)
	}
	var out []instanceArrivals
	for i := range starts {
		g := groups[i]
		if len(g) == 0 {
			continue
		}
		c := instanceArrivals{instance: i, n: len(g), span: g[len(g)-1].At.Sub(g[0].At)}
		for j, a := range g {
			n := 0
			for _, b := range g[j:] {
				if b.At.Sub(a.At) > time.Second {
					break
				}
				n++
			}
			c.worst = max(c.worst, n)
		}
		out = append(out, c)
	}
	return out
}

// TestConfigureSharesOneBudgetPerProcess: every Configure of one provider
// instance (one process) takes its tokens from one budget, at the rate
// set in the block or CUSTODY_MAX_REQUESTS_PER_SECOND; another instance
// has its own; unset, there is none.
func TestConfigureSharesOneBudgetPerProcess(t *testing.T) {
	key, _ := client.GenerateAPIKey()
	valid := map[string]tftypes.Value{
		"base_url": str("http://127.0.0.1:8443"), "organization_id": str("org"),
		"api_public_key": str(key.PublicKeyHex()), "api_private_key": str(key.PrivateKeyHex()),
	}
	with := func(perSecond any) map[string]tftypes.Value {
		m := map[string]tftypes.Value{"max_requests_per_second": tftypes.NewValue(tftypes.Number, perSecond)}
		for k, v := range valid {
			m[k] = v
		}
		return m
	}
	clearCustodyEnv(t)
	t.Setenv(envMaxRequestsPerSecond, "")
	process := New("test")()
	budgetIn := func(t *testing.T, p provider.Provider, attrs map[string]tftypes.Value) *client.RequestBudget {
		t.Helper()
		resp := configureOn(t, p, attrs)
		var diags diag.Diagnostics
		pd := providerDataFrom(resp.ResourceData, &diags)
		if resp.Diagnostics.HasError() || diags.HasError() || pd == nil {
			t.Fatalf("configure: %v %v", resp.Diagnostics, diags)
		}
		return pd.client.Budget()
	}
	budgetOf := func(t *testing.T, attrs map[string]tftypes.Value) *client.RequestBudget {
		t.Helper()
		return budgetIn(t, process, attrs)
	}
	first, again := budgetOf(t, with(5.0)), budgetOf(t, with(5.0))
	if first == nil || first != again || first.PerSecond() != 5 {
		t.Errorf("two configures of one process: budgets %p and %p (rate %v), want one of 5 a second", first, again, first.PerSecond())
	}
	if other := budgetIn(t, New("test")(), with(5.0)); other == first {
		t.Error("another provider process shares the first one's budget")
	}
	if b := budgetOf(t, valid); b != nil {
		t.Errorf("unset, the budget is %v a second, want none", b.PerSecond())
	}
	t.Setenv(envMaxRequestsPerSecond, "0.5")
	if b := budgetOf(t, valid); b == nil || b.PerSecond() != 0.5 {
		t.Errorf("from %s=0.5: budget %v", envMaxRequestsPerSecond, b)
	}
	if b := budgetOf(t, with(2.0)); b == nil || b.PerSecond() != 2 {
		t.Errorf("the block's 2 must win over the variable: budget %v", b)
	}
}

// TestMaxRequestsPerSecondIsChecked: a literal that is not a positive
// rate is refused at validation, on the attribute; the variable, which
// nothing checks before, is refused by Configure, naming it.
func TestMaxRequestsPerSecondIsChecked(t *testing.T) {
	num := func(v any) map[string]tftypes.Value {
		return map[string]tftypes.Value{"max_requests_per_second": tftypes.NewValue(tftypes.Number, v)}
	}
	for name, tc := range map[string]struct {
		attrs   map[string]tftypes.Value
		refused bool
	}{
		"zero": {num(0.0), true}, "negative": {num(-1.0), true},
		"five": {num(5.0), false}, "a half": {num(0.5), false}, "unknown": {num(tftypes.UnknownValue), false},
	} {
		var errs []*tfprotov6.Diagnostic
		for _, d := range validateProviderBlock(t, tc.attrs) {
			if d.Severity == tfprotov6.DiagnosticSeverityError {
				errs = append(errs, d)
			}
		}
		switch {
		case !tc.refused && len(errs) > 0:
			t.Errorf("%s: refused: %s", name, errs[0].Detail)
		case tc.refused && (len(errs) != 1 || !errs[0].Attribute.Equal(tftypes.NewAttributePath().WithAttributeName("max_requests_per_second")) ||
			!strings.Contains(errs[0].Detail, "must be a positive number of requests per second")):
			t.Errorf("%s: errors %v, want one on max_requests_per_second", name, errs)
		}
	}
	key, _ := client.GenerateAPIKey()
	valid := map[string]tftypes.Value{
		"base_url": str("http://127.0.0.1:8443"), "organization_id": str("org"),
		"api_public_key": str(key.PublicKeyHex()), "api_private_key": str(key.PrivateKeyHex()),
	}
	for _, v := range []string{"fast", "0", "-2", "Inf", "NaN"} {
		clearCustodyEnv(t)
		t.Setenv(envMaxRequestsPerSecond, v)
		errs := configure(t, valid).Diagnostics.Errors()
		want := fmt.Sprintf("(or %s) must be a positive number of requests per second, such as 5 or 0.5, got %q", envMaxRequestsPerSecond, v)
		if len(errs) != 1 {
			t.Errorf("%s=%s: want one error, got %v", envMaxRequestsPerSecond, v, errs)
			continue
		}
		if d, ok := errs[0].(diag.DiagnosticWithPath); !ok || !d.Path().Equal(path.Root("max_requests_per_second")) || !strings.Contains(d.Detail(), want) {
			t.Errorf("%s=%s: error %q, want one on max_requests_per_second saying %q", envMaxRequestsPerSecond, v, errs[0].Detail(), want)
		}
	}
}

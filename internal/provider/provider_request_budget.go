package provider

// The max_requests_per_second setting: its schema, its check, and the
// provider process's one budget (client.RequestBudget), which every
// request of the process takes a token from.

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

const envMaxRequestsPerSecond = "CUSTODY_MAX_REQUESTS_PER_SECOND"

func maxRequestsPerSecondAttribute() schema.Attribute {
	return schema.Float64Attribute{
		Optional:   true,
		Validators: []validator.Float64{positiveRate{"value must be a positive number of requests per second, such as 5 or 0.5"}},
		MarkdownDescription: "The most requests per second this provider process sends to the service (a positive number; " +
			"fractions such as `0.5` are allowed). Unset, there is no cap. Every request counts: reads, submits, polls of " +
			"activities and retries. A request waits for its turn; a change is stamped when it leaves, not when it starts " +
			"waiting, so a long wait never makes it stale. The cap is per provider process, and Terraform runs one per " +
			"provider configuration (alias), and several in turn within one command (plan, then apply): see the provider " +
			"documentation's section on sharing the API quota. Falls back to `" + envMaxRequestsPerSecond + "`.",
	}
}

// positiveRate refuses at validation a max_requests_per_second literal
// that client.NewRequestBudget refuses (the one rule: positive and
// finite), so that terraform validate and plan point at the line.
type positiveRate struct{ described }

func (v positiveRate) ValidateFloat64(_ context.Context, req validator.Float64Request, resp *validator.Float64Response) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := client.NewRequestBudget(req.ConfigValue.ValueFloat64()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid max_requests_per_second",
			fmt.Sprintf("max_requests_per_second must be a positive number of requests per second, such as 5 or 0.5, got %v.", req.ConfigValue.ValueFloat64()))
	}
}

// parseMaxRequestsPerSecond reads max_requests_per_second from the block
// or CUSTODY_MAX_REQUESTS_PER_SECOND; "" is no cap (0). It returns why v
// is refused, or "".
func parseMaxRequestsPerSecond(v string) (float64, string) {
	if v == "" {
		return 0, ""
	}
	r, err := strconv.ParseFloat(v, 64)
	if err == nil {
		_, err = client.NewRequestBudget(r)
	}
	if err != nil {
		return 0, fmt.Sprintf("max_requests_per_second (or %s) must be a positive number of requests per second, such as 5 or 0.5, got %q.",
			envMaxRequestsPerSecond, v)
	}
	return r, ""
}

// processBudget is the request budget of the provider process: the one
// provider instance a process serves keeps it, so that every Configure of
// the instance shares it. Terraform configures a process it starts once;
// a provider that Terraform reattaches to (a debugger's, or the
// acceptance tests' in-process one) is configured once per walk of each
// command, and its walks, which run in turn, share the budget too. A
// Configure with another rate replaces it.
type processBudget struct {
	mu     sync.Mutex
	budget *client.RequestBudget
}

// forRate is the budget for perSecond requests per second, nil for 0 (no
// cap).
func (p *processBudget) forRate(perSecond float64) (*client.RequestBudget, error) {
	if perSecond == 0 {
		return nil, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.budget != nil && p.budget.PerSecond() == perSecond {
		return p.budget, nil
	}
	b, err := client.NewRequestBudget(perSecond)
	if err != nil {
		return nil, err
	}
	p.budget = b
	return b, nil
}

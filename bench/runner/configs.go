package main

import "fmt"

// configuration is one benchmarked Terraform configuration: N resources of
// one type, all through count.
type configuration struct {
	name     string
	provider string // provider binary it runs ("custody", "custody-unchecked", "floor"), or "" for none
	custody  bool   // counted against the emulator's requests and the targets
	resource string // resource type, for the report
	body     string // the resource block; %d is N
}

const custodyProvider = `terraform {
  required_providers {
    custody = { source = "custody-labs/custody" }
  }
}

# Credentials from the CUSTODY_* environment of the emulator.
provider "custody" {}
`

const floorProvider = `terraform {
  required_providers {
    floor = { source = "custody-labs/floor" }
  }
}

provider "floor" {}
`

const policyBody = `
resource "custody_policy" "bench" {
  count     = %d
  name      = "bench-${count.index}"
  effect    = "EFFECT_ALLOW"
  condition = "activity.resource == 'PRIVATE_KEY'"
}
`

// configurations, in the order of the first run; later runs rotate it.
var configurations = []configuration{
	{name: "policy", provider: "custody", custody: true, resource: "custody_policy", body: custodyProvider + policyBody},
	// The same policies through the provider built without its plan-time
	// expression checks (tag bench_nopolicycheck): what the checks add.
	{name: "policy-unchecked", provider: "custody-unchecked", custody: true, resource: "custody_policy", body: custodyProvider + policyBody},
	{name: "floor", provider: "floor", resource: "floor_item", body: floorProvider + `
resource "floor_item" "bench" {
  count = %d
  name  = "bench-${count.index}"
}
`},
	{name: "terraform_data", resource: "terraform_data", body: `
resource "terraform_data" "bench" {
  count = %d
  input = "bench-${count.index}"
}
`},
	{name: "tag", provider: "custody", custody: true, resource: "custody_private_key_tag", body: custodyProvider + `
resource "custody_private_key_tag" "bench" {
  count = %d
  name  = "bench-tag-${count.index}"
}
`},
	// The emulator delivers only ACTIVITY_UPDATES events, to every active
	// endpoint subscribed to them, for every activity. The endpoints here
	// subscribe to BALANCE_CONFIRMED_UPDATES only, which the emulator never
	// emits, so no delivery is queued however many endpoints and activities
	// there are. (is_active = false would do the same, but costs a second
	// activity per create.) Port 9 (discard) on loopback: were anything ever
	// delivered, it would go nowhere.
	{name: "webhook", provider: "custody", custody: true, resource: "custody_webhook_endpoint", body: custodyProvider + `
resource "custody_webhook_endpoint" "bench" {
  count = %d
  name  = "bench-${count.index}"
  url   = "http://127.0.0.1:9/bench/${count.index}"
  subscriptions = [
    { event_type = "BALANCE_CONFIRMED_UPDATES" },
  ]
}
`},
}

func (c configuration) hcl(n int) string { return fmt.Sprintf(c.body, n) }

// rotated returns the configurations for run r (0-based): the order of
// run 0 rotated by r, so that over the runs each configuration runs early
// and late, and a drift of the machine touches all of them alike.
func rotated(r int) []configuration {
	out := make([]configuration, 0, len(configurations))
	for i := range configurations {
		out = append(out, configurations[(i+r)%len(configurations)])
	}
	return out
}

var phases = []string{"apply", "plan", "destroy"}

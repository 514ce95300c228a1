package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// configuration is one benchmarked Terraform configuration: N resources of
// one type, all through count.
type configuration struct {
	name     string
	provider string // provider binary it runs ("custody", "custody-unchecked", "custody-noguard", "custody-noreview", "floor", "floor-likecustody"), or "" for none
	// custody: it talks to the emulator. Its requests are counted, and it
	// can run against an emulator with latency (-latencies); the others'
	// times do not depend on the emulator.
	custody  bool
	resource string // resource type, for the report
	body     string // the resource block; %d is N
	// floor is the configuration of the same shape without I/O that it is
	// measured against ("floor-shaped"), or "" if it has none.
	floor string
	// refreshRTTs is the least number of round trips a refresh of any N
	// needs (its list pages, read one after the other): the ideal plan
	// at a latency is the shaped floor plus refreshRTTs × the latency.
	refreshRTTs int
	// renames: its resources take var.suffix in their names, and a fourth
	// phase, renamePhase, plans renaming all of them.
	renames bool
	// reconditions: its resources take var.limit_wei in their conditions,
	// and a phase after renamePhase, conditionPhase, plans changing the
	// condition of all of them.
	reconditions bool
	// latency is the emulator's -fault-latency for this run (0: none);
	// the runner sets it for the runs at each of -latencies.
	latency time.Duration
	// batched are the phases whose creates or deletes go out in batches
	// (several resources per submit).
	batched map[string]bool
}

// label names the configuration at its latency in the report and the
// log: "policy", or "policy@50ms" against an emulator with latency.
func (c configuration) label() string {
	if c.latency == 0 {
		return c.name
	}
	return c.name + "@" + c.latency.String()
}

// dirName is label() as a file name.
func (c configuration) dirName() string { return strings.ReplaceAll(c.label(), "@", "-at-") }

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

// policyBody is N policies; the custody policies and the shaped floor set
// the same values. %[1]s is the resource type, %%d stays for N. The plan
// of renamePhase sets suffix.
const policyBody = `
variable "suffix" {
  type    = string
  default = ""
}

resource "%[1]s" "bench" {
  count     = %%d
  name      = "bench-${count.index}${var.suffix}"
  effect    = "EFFECT_ALLOW"
  condition = "activity.resource == 'PRIVATE_KEY'"
}
`

var (
	custodyPolicies = custodyProvider + fmt.Sprintf(policyBody, "custody_policy")
	floorPolicies   = floorProvider + fmt.Sprintf(policyBody, "floor_policy")
	// unbatchedPolicies are the same policies through a provider that
	// sends every create and delete as its own activity.
	unbatchedPolicies = strings.Replace(custodyPolicies, `provider "custody" {}`,
		"provider \"custody\" {\n  batching = {\n    enabled = false\n  }\n}", 1)
	// alwaysBatchedPolicies are the same policies through a provider that
	// batches every create and delete, even where that saves no approval.
	alwaysBatchedPolicies = strings.Replace(custodyPolicies, `provider "custody" {}`,
		"provider \"custody\" {\n  batching = {\n    enabled = true\n  }\n}", 1)
)

// distinctPolicies is the access review's corpus (issue 31): N policies
// whose expressions differ per policy, as an organization's do, under the
// two controls of the GitOps kit's kind. Policy i allows signing a plain
// ETH transfer to its own address (0x…i, 40 hex digits) of up to
// (i + 1) × limit_wei wei, with 2, 3 or 4 approvers (i mod 3), so the
// control "transactions never signed alone" holds and is checked on every
// change. conditionPhase plans limit_wei = 2000 instead of 1000: every
// condition changes, and with it every policy's decisions (the transfers
// to its address between the old and the new limit), so each change gets
// its access report and its control check. renamePhase changes names
// only: no decision changes, no report.
var distinctPolicies = `terraform {
  required_providers {
    custody = { source = "custody-labs/custody" }
  }
}

# Credentials from the CUSTODY_* environment of the emulator.
provider "custody" {
  controls = [
    {
      name           = "transactions never signed alone"
      activity_types = ["` + client.OpSignTransaction.Type + `"]
      at_most        = "consensus"
    },
    {
      name           = "key export denied"
      activity_types = ["` + client.ActivityTypeExportPrivateKey + `", "` + client.ActivityTypeExportWallet + `", "` + client.ActivityTypeExportWalletAccount + `"]
      at_most        = "denied"
    },
  ]
}

variable "suffix" {
  type    = string
  default = ""
}

variable "limit_wei" {
  type    = number
  default = 1000
}

resource "custody_policy" "bench" {
  count     = %d
  name      = "bench-${count.index}${var.suffix}"
  effect    = "EFFECT_ALLOW"
  condition = "activity.type == '` + client.OpSignTransaction.Type + `' && eth.tx.data == '0x' && eth.tx.to == '${format("0x%%040x", count.index + 1)}' && eth.tx.value <= ${(count.index + 1) * var.limit_wei}"
  consensus = "approvers.count() >= ${2 + count.index %% 3}"
}
`

// shapedPolicies are distinctPolicies with the destinations of another
// organization shape (issue 50 item 6): "shared10", ten addresses (policy
// i sends to the (i mod 10)th); "lists", each policy a list of 5 of 20
// addresses; "one", every policy the same address. Where destinations are
// shared, a change's question meets every policy of its address, so the
// review's cost per change grows with the organization.
func shapedPolicies(shape string) string {
	to := map[string]string{
		"shared10": `eth.tx.to == '${format("0x%%040x", count.index %% 10 + 1)}'`,
		"lists":    `eth.tx.to in [${join(", ", [for j in range(5) : format("'0x%%040x'", (count.index * 7 + j * 3) %% 20 + 1)])}]`,
		"one":      `eth.tx.to == '${format("0x%%040x", 1)}'`,
	}[shape]
	return strings.Replace(distinctPolicies, `eth.tx.to == '${format("0x%%040x", count.index + 1)}'`, to, 1)
}

// shapes are the organization shapes besides the distinct one, each
// measured with and without the review.
var shapes = []string{"shared10", "lists", "one"}

// policyBatched: policy creates and deletes are batched.
var policyBatched = map[string]bool{"apply": true, "destroy": true}

// configurations, in the order of the first run; later runs rotate it.
var configurations = []configuration{
	// Refresh: one list_policies per command. Batching is left to its
	// default, and the emulator's root user, under a root quorum of one,
	// needs no approval: each create and delete goes alone.
	{name: "policy", provider: "custody", custody: true, resource: "custody_policy", body: custodyPolicies, floor: "floor-shaped", refreshRTTs: 1, renames: true},
	// The same policies with batching off: every create and delete its own
	// activity, as before batching.
	{name: "policy-nobatch", provider: "custody", custody: true, resource: "custody_policy", body: unbatchedPolicies, floor: "floor-shaped", refreshRTTs: 1},
	// The same policies with batching.enabled = true: batched though no
	// approval is saved, what batching costs.
	{name: "policy-batched", provider: "custody", custody: true, resource: "custody_policy", body: alwaysBatchedPolicies, floor: "floor-shaped", refreshRTTs: 1,
		batched: policyBatched},
	// The same policies through the provider built without its lockout
	// guard (tag bench_nolockoutguard): what the guard adds to renamePhase,
	// the plan it works in. Without the guard, nothing tells the provider
	// that no approval is needed: its creates and deletes are batched.
	{name: "policy-noguard", provider: "custody-noguard", custody: true, resource: "custody_policy", body: custodyPolicies, floor: "floor-shaped", refreshRTTs: 1, renames: true,
		batched: policyBatched},
	// The access review's corpus (distinctPolicies), through the provider
	// under test and through the same provider built without the access
	// review (tag bench_noaccessreview): what the review adds to a plan that
	// renames every policy (renamePhase, no decision changes) and to one
	// that changes every policy's condition (conditionPhase).
	{name: "policy-review", provider: "custody", custody: true, resource: "custody_policy", body: distinctPolicies, floor: "floor-shaped", refreshRTTs: 1,
		renames: true, reconditions: true},
	{name: "policy-noreview", provider: "custody-noreview", custody: true, resource: "custody_policy", body: distinctPolicies, floor: "floor-shaped", refreshRTTs: 1,
		renames: true, reconditions: true},
	// The access review's corpus in the other shapes (shapedPolicies), with
	// and without the review: policy-review-shared10, policy-noreview-shared10,
	// and so on.
	{name: "policy-review-shared10", provider: "custody", custody: true, resource: "custody_policy", body: shapedPolicies("shared10"), floor: "floor-shaped", refreshRTTs: 1, reconditions: true},
	{name: "policy-noreview-shared10", provider: "custody-noreview", custody: true, resource: "custody_policy", body: shapedPolicies("shared10"), floor: "floor-shaped", refreshRTTs: 1, reconditions: true},
	{name: "policy-review-lists", provider: "custody", custody: true, resource: "custody_policy", body: shapedPolicies("lists"), floor: "floor-shaped", refreshRTTs: 1, reconditions: true},
	{name: "policy-noreview-lists", provider: "custody-noreview", custody: true, resource: "custody_policy", body: shapedPolicies("lists"), floor: "floor-shaped", refreshRTTs: 1, reconditions: true},
	{name: "policy-review-one", provider: "custody", custody: true, resource: "custody_policy", body: shapedPolicies("one"), floor: "floor-shaped", refreshRTTs: 1, reconditions: true},
	{name: "policy-noreview-one", provider: "custody-noreview", custody: true, resource: "custody_policy", body: shapedPolicies("one"), floor: "floor-shaped", refreshRTTs: 1, reconditions: true},
	// The same policies through the provider built without its plan-time
	// expression checks (tag bench_nopolicycheck): what the checks add.
	{name: "policy-unchecked", provider: "custody-unchecked", custody: true, resource: "custody_policy", body: custodyPolicies, floor: "floor-shaped", refreshRTTs: 1},
	// The shaped floor: the same policies as floor_policy, custody_policy's
	// schema without validators or I/O, served the way the custody provider
	// is (no unread logs, request contexts released). The policy targets
	// are against it.
	{name: "floor-shaped", provider: "floor-likecustody", resource: "floor_policy", body: floorPolicies},
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
	// Refresh: list_private_key_tags, then list_private_keys.
	// Deletes are batched (delete_private_key_tags); creates are not.
	{name: "tag", provider: "custody", custody: true, resource: "custody_private_key_tag", refreshRTTs: 2, batched: map[string]bool{"destroy": true}, body: custodyProvider + `
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
	// Refresh: one list_webhook_endpoints.
	{name: "webhook", provider: "custody", custody: true, resource: "custody_webhook_endpoint", refreshRTTs: 1, body: custodyProvider + `
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

// rotated returns the configurations cs in the order of run r (0-based):
// their order rotated by r, so that over the runs each configuration runs
// early and late, and a drift of the machine touches all of them alike.
func rotated(cs []configuration, r int) []configuration {
	out := make([]configuration, 0, len(cs))
	for i := range cs {
		out = append(out, cs[(i+r)%len(cs)])
	}
	return out
}

var phases = []string{"apply", "plan", "destroy"}

// renamePhase is a plan that renames every policy (-var suffix=...), run
// after "plan" by the configurations with renames: the plan the lockout
// guard works in, one check per policy. It must plan N changes.
const renamePhase = "plan-rename"

// conditionPhase is a plan that changes the condition of every policy
// (-var limit_wei=2000), run after renamePhase by the configurations with
// reconditions: the plan the access review reports on, one report per
// policy. It must plan N changes.
const conditionPhase = "plan-condition"

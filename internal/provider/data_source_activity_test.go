package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// activityTestLazyString is a config variable whose value is read when the
// step writes its variables, which is after PreConfig: the activity id of a
// resource applied in an earlier step is not known when the steps are built.
type activityTestLazyString struct{ v *string }

func (l activityTestLazyString) MarshalJSON() ([]byte, error) { return json.Marshal(*l.v) }

// activityTestFind returns the id of the only activity of type typ; with
// it, a test reads back the activity a resource of the provider submitted.
func activityTestFind(t *testing.T, e *accEmulator, typ string, into *string) func() {
	return func() {
		got, err := e.client.ListActivities(context.Background(), client.ListActivitiesRequest{FilterByType: []string{typ}})
		if err != nil {
			t.Fatalf("list_activities: %v", err)
		}
		if len(got.Activities) != 1 {
			t.Fatalf("want exactly one %s activity, got %d", typ, len(got.Activities))
		}
		*into = got.Activities[0].ID
	}
}

// activityTestEquals checks a string against a value known only after an
// earlier step ran.
func activityTestEquals(want *string) knownvalue.Check {
	return knownvalue.StringFunc(func(v string) error {
		if v != *want {
			return fmt.Errorf("got %q, want %q", v, *want)
		}
		return nil
	})
}

// activityTestRead is HCL for a string variable v (an activity id) and,
// for each "type.name" in dataSources, a data source reading it.
func activityTestRead(v string, dataSources ...string) string {
	hcl := fmt.Sprintf("\nvariable %q {\n  type = string\n}\n", v)
	for _, ds := range dataSources {
		typ, name, _ := strings.Cut(ds, ".")
		hcl += fmt.Sprintf("\ndata %q %q {\n  activity_id = var.%s\n}\n", typ, name, v)
	}
	return hcl
}

const activityTestPolicy = `
resource "custody_policy" "test" {
  name      = "audit policy changes"
  effect    = "EFFECT_ALLOW"
  condition = "activity.resource == 'POLICY' && activity.action != 'DELETE'"
  notes     = "read back by custody_activity"
}
`

// The activity is the one custody_policy.test submitted in step 1: the
// resource does not expose its activity id, so step 2 looks it up by type
// and hands it to the configuration as a variable.
func TestAccActivityDataSource_readsResourceActivity(t *testing.T) {
	e := newAccEmulator(t)
	var activityID, policyID string
	const ds = "data.custody_activity.test"
	at := func(p tfjsonpath.Path, v knownvalue.Check) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(ds, p, v)
	}
	attr := func(name string, v knownvalue.Check) statecheck.StateCheck { return at(tfjsonpath.New(name), v) }
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config: e.config(activityTestPolicy),
				Check:  resource.TestCheckResourceAttrWith("custody_policy.test", "id", func(v string) error { policyID = v; return nil }),
			},
			{
				PreConfig:       activityTestFind(t, e, "ACTIVITY_TYPE_CREATE_POLICIES", &activityID),
				Config:          e.config(activityTestPolicy + activityTestRead("activity_id", "custody_activity.test")),
				ConfigVariables: config.Variables{"activity_id": activityTestLazyString{&activityID}},
				ConfigStateChecks: []statecheck.StateCheck{
					attr("activity_id", activityTestEquals(&activityID)),
					attr("organization_id", knownvalue.StringExact(accOrg)),
					attr("status", knownvalue.StringExact(client.StatusCompleted)),
					attr("type", knownvalue.StringExact("ACTIVITY_TYPE_CREATE_POLICIES")),
					attr("fingerprint", knownvalue.StringRegexp(accNonBlank)),
					attr("can_approve", knownvalue.Bool(false)),
					attr("can_reject", knownvalue.Bool(false)),
					// Keys sorted at every level, "&&" not escaped.
					attr("intent", knownvalue.StringExact(`{"createPoliciesIntent":{"policies":[{"condition":"activity.resource == 'POLICY' && activity.action != 'DELETE'",`+
						`"effect":"EFFECT_ALLOW","notes":"read back by custody_activity","policyName":"audit policy changes"}]}}`)),
					attr("result", knownvalue.StringFunc(func(v string) error {
						if want := `{"createPoliciesResult":{"policyIds":["` + policyID + `"]}}`; v != want {
							return fmt.Errorf("got %s, want %s", v, want)
						}
						return nil
					})),
					attr("votes", knownvalue.ListExact([]knownvalue.Check{knownvalue.ObjectExact(map[string]knownvalue.Check{
						"id":        knownvalue.StringRegexp(accNonBlank),
						"user_id":   knownvalue.StringExact("user-root"),
						"user_name": knownvalue.StringExact("root"),
						"selection": knownvalue.StringExact("VOTE_SELECTION_APPROVED"),
						// The requester's vote: the submit's body, as signed.
						"message": knownvalue.StringFunc(func(v string) error {
							var env client.Envelope
							if err := json.Unmarshal([]byte(v), &env); err != nil || env.Type != client.OpCreatePolicies.Type ||
								!strings.Contains(string(env.Parameters), `"policyName":"audit policy changes"`) {
								return fmt.Errorf("message %s is not the create_policies body (%v)", v, err)
							}
							return nil
						}),
						"public_key": knownvalue.StringExact(e.key.PublicKeyHex()),
						"signature":  knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]+$`)), // the stamp's
						"scheme":     knownvalue.StringExact(client.StampSchemeP256),
						"created_at": knownvalue.StringRegexp(accRFC3339),
					})})),
					attr("app_proofs", knownvalue.Null()),
					attr("failure", knownvalue.Null()),
					attr("created_at", knownvalue.StringRegexp(accRFC3339)),
					attr("updated_at", knownvalue.StringRegexp(accRFC3339)),
				},
			},
		},
	})
}

// A policy with a syntax error fails its activity; the data source reports
// the failure the service recorded.
func TestAccActivityDataSource_failed(t *testing.T) {
	e := newAccEmulator(t)
	_, err := e.client.CreatePolicies(context.Background(), client.CreatePoliciesParams{Policies: []client.PolicyParams{{
		PolicyName: "broken", Effect: client.EffectDeny, Condition: "activity.type ==", Notes: "syntax error on purpose"}}})
	var actErr *client.ActivityError
	if !errors.As(err, &actErr) {
		t.Fatalf("want an *ActivityError for a condition with a syntax error, got %v", err)
	}
	const ds = "data.custody_activity.test"
	attr := func(name string, v knownvalue.Check) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(ds, tfjsonpath.New(name), v)
	}
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{{
			Config: e.dataBlock("custody_activity", "activity_id", actErr.ActivityID),
			ConfigStateChecks: []statecheck.StateCheck{
				attr("status", knownvalue.StringExact(client.StatusFailed)),
				attr("type", knownvalue.StringExact("ACTIVITY_TYPE_CREATE_POLICIES")),
				attr("failure", knownvalue.ObjectExact(map[string]knownvalue.Check{
					"code":         knownvalue.Int64Exact(3),
					"message":      knownvalue.StringRegexp(regexp.MustCompile(`^policies\[0\]\.condition is not a valid condition expression: line 1, column 17`)),
					"details_json": knownvalue.StringExact("[]"),
				})),
				attr("intent", knownvalue.StringExact(`{"createPoliciesIntent":{"policies":[{"condition":"activity.type ==",`+
					`"effect":"EFFECT_DENY","notes":"syntax error on purpose","policyName":"broken"}]}}`)),
				attr("result", knownvalue.StringExact("{}")),
				attr("can_approve", knownvalue.Bool(false)),
				attr("can_reject", knownvalue.Bool(false)),
				attr("votes", knownvalue.ListSizeExact(1)),
				attr("updated_at", knownvalue.StringRegexp(accRFC3339)),
			},
		}},
	})
}

func TestAccActivityDataSource_errors(t *testing.T) {
	e := newAccEmulator(t)
	cfg := func(id string) string { return e.dataBlock("custody_activity", "activity_id", id) }
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			planFails(cfg(""), regexp.MustCompile(`must be an activity id`)),
			planFails(cfg("two words"), regexp.MustCompile(`must be an activity id`)),
			planFails(cfg("activity-that-does-not-exist"), regexp.MustCompile(`(?s)Error reading activity.*get_activity for activity\s+activity-that-does-not-exist.*HTTP\s+404`)),
		},
	})
}

// Intent and result are rendered once per read; their text must not
// depend on the service's key order, and must keep numbers and "&" intact.
func TestActivityNormalizedJSON(t *testing.T) {
	in := map[string]json.RawMessage{
		"b": json.RawMessage(`{"z": 1, "a": {"y": 18446744073709551617, "x": "a && b < c"}}`),
		"a": json.RawMessage(`[ {"k": true} ]`),
	}
	got, err := activityNormalizedJSON(in)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a":[{"k":true}],"b":{"a":{"x":"a && b < c","y":18446744073709551617},"z":1}}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestActivityVoteMessageIsSensitive: a vote's message is the request body
// as signed, which may carry a secret, so plans and outputs must not show
// it.
func TestActivityVoteMessageIsSensitive(t *testing.T) {
	var resp datasource.SchemaResponse
	NewActivityDataSource().Schema(context.Background(), datasource.SchemaRequest{}, &resp)
	votes, ok := resp.Schema.Attributes["votes"].(schema.ListNestedAttribute)
	if !ok {
		t.Fatalf("votes is a %T", resp.Schema.Attributes["votes"])
	}
	if !votes.NestedObject.Attributes["message"].IsSensitive() {
		t.Fatal("votes[].message is not sensitive")
	}
}

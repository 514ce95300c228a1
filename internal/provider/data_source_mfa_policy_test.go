package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

// Ids from examples/emulator/fixtures.json.
const (
	mfaPolicyTestAlice   = "e6f63d73-f4c8-4bf4-9757-4b3ed6c28d82" // two MFA policies
	mfaPolicyTestBob     = "89fb0b52-ac56-409e-9562-928e783fc57b" // none
	mfaPolicyTestTwoStep = "a1a0b213-8e5a-4268-a9b6-93fb46983f39"
	mfaPolicyTestAnyOf   = "f3bb177c-d38e-43eb-b5d9-1f29a79eaa8a"
	mfaPolicyTestSession = "c53874eb-f83c-429a-a838-bd6e1a92c0be"
)

const mfaPolicyTestAddr = "data.custody_mfa_policy.test"

func mfaPolicyTestConfig(e *accEmulator, userID, policyID string) string {
	return e.dataBlock("custody_mfa_policy", "user_id", userID, "mfa_policy_id", policyID)
}

// mfaPolicyTestMethod is one expected method of a step.
func mfaPolicyTestMethod(typ string, id knownvalue.Check) knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{"type": knownvalue.StringExact(typ), "id": id})
}

// mfaPolicyTestStep is one expected step: the methods of which any suffices.
func mfaPolicyTestStep(methods ...knownvalue.Check) knownvalue.Check {
	return knownvalue.ObjectExact(map[string]knownvalue.Check{"any": knownvalue.ListExact(methods)})
}

// mfaPolicyTestTwoStepChecks is the fixture's first policy of alice, as
// both custody_mfa_policy and custody_mfa_policies must show it.
func mfaPolicyTestTwoStepChecks() map[string]knownvalue.Check {
	return map[string]knownvalue.Check{
		"name":      knownvalue.StringExact("passkey then email code for transactions"),
		"condition": knownvalue.StringExact("activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'"),
		// Two steps, kept in the service's order: a passkey first, then the
		// email code. No method names a specific authenticator: id is null.
		"required_authentication_methods": knownvalue.ListExact([]knownvalue.Check{
			mfaPolicyTestStep(mfaPolicyTestMethod("AUTHENTICATION_TYPE_PASSKEY", knownvalue.Null())),
			mfaPolicyTestStep(mfaPolicyTestMethod("AUTHENTICATION_TYPE_EMAIL_OTP", knownvalue.Null())),
		}),
		"order":      knownvalue.Int64Exact(1),
		"notes":      knownvalue.StringExact("two steps, in order: a passkey, then an email OTP"),
		"created_at": knownvalue.StringExact("2026-10-26T07:33:20Z"),
		"updated_at": knownvalue.StringExact("2026-10-27T07:33:20Z"),
	}
}

// mfaPolicyTestAnyOfChecks is the second policy: one step with two
// alternatives, the first bound to a session profile; no notes.
func mfaPolicyTestAnyOfChecks() map[string]knownvalue.Check {
	return map[string]knownvalue.Check{
		"name":      knownvalue.StringExact("trusted session or SMS code for policy changes"),
		"condition": knownvalue.StringExact("activity.resource == 'POLICY'"),
		"required_authentication_methods": knownvalue.ListExact([]knownvalue.Check{
			mfaPolicyTestStep(
				mfaPolicyTestMethod("AUTHENTICATION_TYPE_SESSION", knownvalue.StringExact(mfaPolicyTestSession)),
				mfaPolicyTestMethod("AUTHENTICATION_TYPE_SMS_OTP", knownvalue.Null()),
			),
		}),
		"order":      knownvalue.Int64Exact(2),
		"notes":      knownvalue.Null(),
		"created_at": knownvalue.StringExact("2026-10-26T07:33:20Z"),
		"updated_at": knownvalue.StringExact("2026-10-26T07:33:20Z"),
	}
}

// mfaPolicyTestStateChecks checks every attribute of the data source.
func mfaPolicyTestStateChecks(userID, policyID string, want map[string]knownvalue.Check) []statecheck.StateCheck {
	want["user_id"], want["mfa_policy_id"] = knownvalue.StringExact(userID), knownvalue.StringExact(policyID)
	return attrsAre(mfaPolicyTestAddr, want)
}

func TestAccMfaPolicyDataSource_basic(t *testing.T) {
	e := newAccEmulator(t, withExampleFixtures(t))
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			{
				Config:            mfaPolicyTestConfig(e, mfaPolicyTestAlice, mfaPolicyTestTwoStep),
				ConfigStateChecks: mfaPolicyTestStateChecks(mfaPolicyTestAlice, mfaPolicyTestTwoStep, mfaPolicyTestTwoStepChecks()),
			},
			{
				Config:            mfaPolicyTestConfig(e, mfaPolicyTestAlice, mfaPolicyTestAnyOf),
				ConfigStateChecks: mfaPolicyTestStateChecks(mfaPolicyTestAlice, mfaPolicyTestAnyOf, mfaPolicyTestAnyOfChecks()),
			},
		},
	})
}

func TestAccMfaPolicyDataSource_notFound(t *testing.T) {
	e := newAccEmulator(t, withExampleFixtures(t))
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			// A policy id the user does not have: the error names it.
			readFails(mfaPolicyTestConfig(e, mfaPolicyTestAlice, "00000000-0000-4000-8000-00000000beef"),
				"Error reading MFA policy", "MFA policy 00000000-0000-4000-8000-00000000beef of user "+mfaPolicyTestAlice, "does not exist"),
			// A policy of alice asked for as bob's is not found either.
			readFails(mfaPolicyTestConfig(e, mfaPolicyTestBob, mfaPolicyTestTwoStep),
				"MFA policy "+mfaPolicyTestTwoStep+" of user "+mfaPolicyTestBob, "does not exist"),
			readFails(mfaPolicyTestConfig(e, "00000000-0000-4000-8000-0000000000aa", mfaPolicyTestTwoStep),
				"user 00000000-0000-4000-8000-0000000000aa", "HTTP 404"),
		},
	})
}

func TestAccMfaPolicyDataSource_blankIDs(t *testing.T) {
	e := newAccEmulator(t)
	accTest(t, resource.TestCase{
		Steps: []resource.TestStep{
			blankRefused(mfaPolicyTestConfig(e, " ", mfaPolicyTestTwoStep), "user_id"),
			blankRefused(mfaPolicyTestConfig(e, mfaPolicyTestAlice, ""), "mfa_policy_id"),
		},
	})
}

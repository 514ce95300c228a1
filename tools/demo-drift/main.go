// Command demo-drift changes the organization behind Terraform's back, so
// that the demo (scripts/demo.sh) can show that the next `terraform plan`
// detects the drift.
//
// Usage:
//
//	go run ./tools/demo-drift [-name NEW_NAME] POLICY_ID
//	go run ./tools/demo-drift -grant NAME
//
// The first renames the policy POLICY_ID with update_policy, through the
// same client the provider uses, and prints the old and new names. The
// second makes a policy beside the configuration, as the dashboard would:
// an allow named NAME that lets one user sign transactions alone, and
// prints its id. The
// credentials come from the variables the emulator prints:
// CUSTODY_BASE_URL, CUSTODY_ORGANIZATION_ID, CUSTODY_API_PUBLIC_KEY and
// CUSTODY_API_PRIVATE_KEY.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

func main() {
	name := flag.String("name", "Renamed outside Terraform", "the policy's new name")
	grant := flag.String("grant", "", "make an allow of this name that lets one user sign alone, instead of renaming")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: demo-drift [-name NEW_NAME] POLICY_ID | demo-drift -grant NAME")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *grant != "" && flag.NArg() == 0 {
		if err := makeGrant(*grant); err != nil {
			fmt.Fprintln(os.Stderr, "demo-drift:", err)
			os.Exit(1)
		}
		return
	}
	if flag.NArg() != 1 || flag.Arg(0) == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *name); err != nil {
		fmt.Fprintln(os.Stderr, "demo-drift:", err)
		os.Exit(1)
	}
}

// fromEnv is the client of the CUSTODY_* variables the emulator prints.
func fromEnv() (*client.Client, error) {
	c, err := client.New(client.Config{
		BaseURL:        os.Getenv("CUSTODY_BASE_URL"),
		OrganizationID: os.Getenv("CUSTODY_ORGANIZATION_ID"),
		APIPublicKey:   os.Getenv("CUSTODY_API_PUBLIC_KEY"),
		APIPrivateKey:  os.Getenv("CUSTODY_API_PRIVATE_KEY"),
	})
	if err != nil {
		return nil, fmt.Errorf("client from CUSTODY_* variables: %w", err)
	}
	return c, nil
}

// makeGrant makes the allow a dashboard user might add: anyone signs
// alone.
func makeGrant(name string) error {
	c, err := fromEnv()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := c.CreatePolicies(ctx, client.CreatePoliciesParams{Policies: []client.PolicyParams{{PolicyName: name,
		Effect: client.EffectAllow, Condition: "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'"}}})
	if err != nil {
		return fmt.Errorf("create_policies: %w", err)
	}
	fmt.Printf("demo-drift: made policy %q (%s) outside Terraform: one user may now sign alone\n", name, out.Result.PolicyIDs[0])
	return nil
}

func run(policyID, newName string) error {
	c, err := fromEnv()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	before, err := c.GetPolicy(ctx, client.GetPolicyRequest{PolicyID: policyID})
	if err != nil {
		return fmt.Errorf("get_policy %s: %w", policyID, err)
	}
	if _, err := c.UpdatePolicy(ctx, client.UpdatePolicyParams{PolicyID: policyID, PolicyName: &newName}); err != nil {
		return fmt.Errorf("update_policy %s: %w", policyID, err)
	}
	fmt.Printf("demo-drift: renamed policy %s from %q to %q\n", policyID, before.Policy.PolicyName, newName)
	return nil
}

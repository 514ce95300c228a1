// Command demo-drift changes one policy behind Terraform's back, so that
// the demo (scripts/demo.sh) can show that the next `terraform plan`
// detects the drift.
//
// Usage:
//
//	go run ./tools/demo-drift [-name NEW_NAME] POLICY_ID
//
// It renames the policy POLICY_ID with update_policy, through the same
// client the provider uses, and prints the old and new names. The
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
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: demo-drift [-name NEW_NAME] POLICY_ID")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 || flag.Arg(0) == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *name); err != nil {
		fmt.Fprintln(os.Stderr, "demo-drift:", err)
		os.Exit(1)
	}
}

func run(policyID, newName string) error {
	c, err := client.New(client.Config{
		BaseURL:        os.Getenv("CUSTODY_BASE_URL"),
		OrganizationID: os.Getenv("CUSTODY_ORGANIZATION_ID"),
		APIPublicKey:   os.Getenv("CUSTODY_API_PUBLIC_KEY"),
		APIPrivateKey:  os.Getenv("CUSTODY_API_PRIVATE_KEY"),
	})
	if err != nil {
		return fmt.Errorf("client from CUSTODY_* variables: %w", err)
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

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// runVote is `custody-emulator approve` and `custody-emulator reject`: a
// second root user votes on activities that wait for consensus, with a key
// the server generated (-root-quorum N) and wrote to its env file, through
// the client, stamped, exactly as a second person would through the
// service. So the consensus flow can be finished offline.
func runVote(ctx context.Context, verb string, args []string, env func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("custody-emulator "+verb, flag.ContinueOnError)
	fs.SetOutput(stderr)
	envFile := fs.String("env-file", "", "the env file the server wrote (default: $CUSTODY_EMULATOR_ENV_FILE, else "+envFileName+
		" in the working directory)")
	fingerprint := fs.String("fingerprint", "", "the fingerprint of the one activity to "+verb)
	all := fs.Bool("all", false, verb+" every activity that waits for consensus and that this root user has not voted on")
	root := fs.Int("root", 2, "the root user who votes: N for the keys CUSTODY_ROOTN_API_* (1 for CUSTODY_API_*); by default the first generated extra one")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("%s: unexpected arguments %q", verb, fs.Args())
	case (*fingerprint == "") == !*all:
		return fmt.Errorf("%s: give -fingerprint FP or -all", verb)
	}
	c, err := voterClient(*envFile, *root, env)
	if err != nil {
		return fmt.Errorf("%s: %w", verb, err)
	}
	fingerprints := []string{*fingerprint}
	if *all {
		if fingerprints, err = waitingFor(ctx, c); err != nil {
			return fmt.Errorf("%s: %w", verb, err)
		}
		if len(fingerprints) == 0 {
			_, err := fmt.Fprintln(stdout, "nothing waits for this root user's vote")
			return err
		}
	}
	vote := c.ApproveActivity
	if verb == "reject" {
		vote = c.RejectActivity
	}
	var failed error
	for _, fp := range fingerprints {
		act, err := vote(ctx, client.VoteParams{Fingerprint: fp})
		if err != nil {
			failed = errors.Join(failed, fmt.Errorf("%s %s: %w", verb, fp, err))
			continue
		}
		if _, err := fmt.Fprintf(stdout, "%s %s (%s): %s\n", map[string]string{"approve": "approved", "reject": "rejected"}[verb],
			act.ID, act.Type, act.Status); err != nil {
			return err
		}
	}
	return failed
}

// voterClient is a client with root user n's keys from the env file.
func voterClient(path string, n int, env func(string) string) (*client.Client, error) {
	if path == "" {
		path = env("CUSTODY_EMULATOR_ENV_FILE")
	}
	if path == "" {
		path = envFileName
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the env file the server wrote: %w", err)
	}
	vals := parseExports(string(b))
	prefix := "CUSTODY_API_"
	if n > 1 {
		prefix = fmt.Sprintf("CUSTODY_ROOT%d_API_", n)
	}
	if vals[prefix+"PRIVATE_KEY"] == "" {
		return nil, fmt.Errorf("env file %s has no %sPRIVATE_KEY: start the server with -root-quorum %d or more (it generates the keys "+
			"of the extra root users), or pass -root", path, prefix, max(n, 2))
	}
	return client.New(client.Config{BaseURL: vals["CUSTODY_BASE_URL"], OrganizationID: vals["CUSTODY_ORGANIZATION_ID"],
		APIPublicKey: vals[prefix+"PUBLIC_KEY"], APIPrivateKey: vals[prefix+"PRIVATE_KEY"]})
}

// waitingFor lists the fingerprints of the activities that wait for
// consensus and that c's user has not voted on yet.
func waitingFor(ctx context.Context, c *client.Client) ([]string, error) {
	who, err := c.Whoami(ctx, client.WhoamiRequest{})
	if err != nil {
		return nil, err
	}
	got, err := c.ListActivities(ctx, client.ListActivitiesRequest{FilterByStatus: []string{client.StatusConsensusNeeded}})
	if err != nil {
		return nil, err
	}
	var fps []string
	for _, act := range got.Activities {
		if !slices.ContainsFunc(act.Votes, func(v client.Vote) bool { return v.UserID == who.UserID }) {
			fps = append(fps, act.Fingerprint)
		}
	}
	return fps, nil
}

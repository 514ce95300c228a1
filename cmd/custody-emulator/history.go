package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
)

// runHistory is `custody-emulator history`: it loads a state file, adds
// the activities of the last days that emulator.GenerateHistory draws from
// the seed (what becomes of each is what the state's policies decide),
// saves the state and prints a one-line summary. The root users' keys come
// from the env file the server wrote; without them the history has no root
// activities. The server must not be running on the state meanwhile: it
// would overwrite the file with what it holds.
func runHistory(args []string, env func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("custody-emulator history", flag.ContinueOnError)
	fs.SetOutput(stderr)
	statePath := fs.String("state", "", "the state file to add the history to, which the emulator made (default: $CUSTODY_EMULATOR_STATE)")
	envFile := fs.String("env-file", "", "the env file the server wrote, for the root users' keys (default: $CUSTODY_EMULATOR_ENV_FILE, else "+
		envFileName+" next to -state)")
	days := fs.Int("days", emulator.DefaultHistoryDays, "how many days, ending now, the history covers")
	perDay := fs.Int("per-day", emulator.DefaultHistoryPerDay, "activities a day on average (more on weekdays, fewer at weekends)")
	seed := fs.Uint64("seed", 1, "seed of what is submitted, when and by whom: the same seed on the same state makes the same history")
	actorsOnly := fs.Bool("actors-only", false, "only add the history's users, keys and tags (if absent) and print their tags, to write policies that name them")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *statePath == "" {
		*statePath = env("CUSTODY_EMULATOR_STATE")
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("history: unexpected arguments %q", fs.Args())
	case *statePath == "":
		return errors.New("history: give -state FILE, the state file of the emulator to add the history to")
	case *days < 1 || *perDay < 1:
		return fmt.Errorf("history: -days %d and -per-day %d must be at least 1", *days, *perDay)
	}
	exists, err := stateExists(*statePath)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if !exists {
		return fmt.Errorf("history: state file %s does not exist: start the emulator with -state %s first", *statePath, *statePath)
	}
	srv, err := emulator.New(emulator.Options{StatePath: *statePath})
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer srv.Close()
	if *envFile == "" {
		*envFile = env("CUSTODY_EMULATOR_ENV_FILE")
	}
	if *envFile == "" {
		*envFile = filepath.Join(filepath.Dir(*statePath), envFileName)
	}
	opts := emulator.HistoryOptions{Days: *days, PerDay: *perDay, Seed: *seed, RootKeys: historyRootKeys(*envFile, srv.OrganizationID(), stderr)}
	actors, err := srv.EnsureHistoryActors(opts)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	note(stderr, "history actors: users %s; user tags %s; private key tags %s", historyUserNames(actors),
		tagList(actors.UserTags), tagList(actors.PrivateKeyTags))
	if *actorsOnly {
		_, err := fmt.Fprintln(stdout, "history: actors only, no activity added")
		return err
	}
	sum, err := srv.GenerateHistory(opts)
	if err != nil {
		return fmt.Errorf("history: %w (the state file holds what was made until then)", err)
	}
	_, err = fmt.Fprintln(stdout, sum)
	return err
}

// historyRootKeys are the root users' keys of organization orgID in the
// env file at path: those the server generated, with their private keys.
func historyRootKeys(path, orgID string, stderr io.Writer) []*client.APIKey {
	b, err := os.ReadFile(path)
	if err != nil {
		note(stderr, "no root user's key (%v): the history has no root user's activity", err)
		return nil
	}
	vals := parseExports(string(b))
	if got := vals["CUSTODY_ORGANIZATION_ID"]; got != orgID {
		note(stderr, "env file %s is of organization %q, not %s: the history has no root user's activity", path, got, orgID)
		return nil
	}
	var keys []*client.APIKey
	for i := 1; ; i++ {
		prefix := "CUSTODY_API_"
		if i > 1 {
			prefix = fmt.Sprintf("CUSTODY_ROOT%d_API_", i)
		}
		if vals[prefix+"PUBLIC_KEY"] == "" {
			break
		}
		if vals[prefix+"PRIVATE_KEY"] == "" {
			continue // a key given with -api-public-key: its private key is not ours
		}
		k, err := client.ParseAPIKey(vals[prefix+"PUBLIC_KEY"], vals[prefix+"PRIVATE_KEY"])
		if err != nil {
			note(stderr, "env file %s: %s*: %v", path, prefix, err)
			continue
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		note(stderr, "env file %s holds no root user's private key: the history has no root user's activity", path)
	}
	return keys
}

func historyUserNames(a emulator.HistoryActors) string {
	var names []string
	for _, u := range a.Users {
		names = append(names, u.UserName)
	}
	return strings.Join(names, ", ")
}

// tagList writes tags as name=id, by name.
func tagList(tags map[string]string) string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(tags)) {
		parts = append(parts, name+"="+tags[name])
	}
	return strings.Join(parts, ", ")
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// documentedStart is the emulator start that README.md documents (the
// `go run ./cmd/custody-emulator ...` command, with its continuation
// lines), as arguments run in dir: the state file in dir, the fixtures
// file read from the repository.
func documentedStart(t *testing.T, dir string) []string {
	t.Helper()
	readme := string(mustRead(t, "../../README.md"))
	cmd := regexp.MustCompile(`(?m)^go run \./cmd/custody-emulator((?: .*\\\n)*.*)$`).FindStringSubmatch(readme)
	if cmd == nil {
		t.Fatal("README.md documents no `go run ./cmd/custody-emulator ...` command")
	}
	args := strings.Fields(strings.ReplaceAll(cmd[1], "\\\n", " "))
	for i := 1; i < len(args); i++ {
		switch args[i-1] {
		case "-state":
			args[i] = filepath.Join(dir, filepath.Base(args[i]))
		case "-fixtures":
			args[i] = filepath.Join("../..", args[i])
		}
	}
	if !slices.Contains(args, "-state") || !slices.Contains(args, "-fixtures") {
		t.Fatalf("the documented start %q has no -state or no -fixtures: this test would prove nothing", args)
	}
	return args
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The documented start, run twice on the same state file, serves both
// times: the second start keeps the state as it is (with what was made in
// it), says so, does not load the fixtures again and hands out the same
// credentials. Other fixtures on that state are still an error that says
// what to do.
func TestRunTheDocumentedStartTwice(t *testing.T) {
	dir := t.TempDir()
	args := documentedStart(t, dir)
	t.Logf("the documented start: custody-emulator %s", strings.Join(args, " "))
	first := start(t, args, nil)
	tag, err := first.clientOf(t, "CUSTODY_API_").CreatePrivateKeyTag(t.Context(), client.CreatePrivateKeyTagParams{PrivateKeyTagName: "made before the restart"})
	if err != nil {
		t.Fatal(err)
	}
	if err := first.stop(); err != nil {
		t.Fatal(err)
	}

	again := start(t, args, nil)
	if !strings.Contains(again.stderr, "already holds the fixtures of") || !strings.Contains(again.stderr, "state kept as it is, fixtures not loaded again") {
		t.Errorf("the second start should say that it kept the state; stderr:\n%s", again.stderr)
	}
	for _, k := range []string{"CUSTODY_ORGANIZATION_ID", "CUSTODY_API_PUBLIC_KEY", "CUSTODY_API_PRIVATE_KEY"} {
		if again.vals[k] != first.vals[k] {
			t.Errorf("after the second start %s = %q, want %q", k, again.vals[k], first.vals[k])
		}
	}
	root := again.clientOf(t, "CUSTODY_API_")
	tags, err := root.ListPrivateKeyTags(t.Context(), client.ListPrivateKeyTagsRequest{})
	if err != nil || len(tags.PrivateKeyTags) != 1 || tags.PrivateKeyTags[0].TagID != tag.Result.PrivateKeyTagID {
		t.Errorf("the tag made before the restart: %+v, %v", tags, err)
	}
	app, err := root.GetAppStatus(t.Context(), client.GetAppStatusRequest{AppID: "1f867cf8-cde5-406f-b0ec-970e4c6b344c"})
	if err != nil || len(app.AppStatus.Deployments) != 2 {
		t.Errorf("the fixtures after the restart: %+v, %v", app, err)
	}
	_ = again.stop()

	// Fixtures the state was not seeded with: refused, the state left as it was.
	state := args[slices.Index(args, "-state")+1]
	before := mustRead(t, state)
	other := filepath.Join(dir, "other-fixtures.json")
	if err := os.WriteFile(other, []byte(`{"appStatuses": [{"appId": "another-app"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	withOther := append(slices.Clone(args), "-fixtures", other)
	err = run(t.Context(), withOther, envOf(nil), &syncBuffer{}, &syncBuffer{})
	if err == nil || !strings.Contains(err.Error(), "was seeded with other fixtures than these") || !strings.Contains(err.Error(), "start without the fixtures to keep this state") {
		t.Errorf("other fixtures on the state: %v", err)
	}
	if !bytes.Equal(mustRead(t, state), before) {
		t.Error("a refused start changed the state file")
	}
}

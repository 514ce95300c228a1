package emulator

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

func TestStateSurvivesARestart(t *testing.T) {
	e, path := newPersistentEmulator(t)
	done, err := e.client.UpdateOrganizationName(t.Context(), client.UpdateOrganizationNameParams{OrganizationName: "Durable"})
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("state file: %v, mode %v; want 0600", err, info.Mode())
	}
	// Same file, no root users given: the file holds them.
	again, url := restarted(t, e, path)
	c := clientFor(t, url, e.key)
	who, err := c.Whoami(t.Context(), whoami())
	if err != nil || who.OrganizationName != "Durable" {
		t.Fatalf("after restart: %+v %v", who, err)
	}
	act, err := c.GetActivity(t.Context(), client.GetActivityRequest{ActivityID: done.Activity.ID})
	if err != nil || act.Status != client.StatusCompleted {
		t.Fatalf("activity after restart: %+v %v", act, err)
	}
	if got := again.OrganizationID(); got != testOrg {
		t.Errorf("organization after restart = %s", got)
	}
}

func TestStateFileProblemsAreStartupErrors(t *testing.T) {
	dir := t.TempDir()
	key, _ := client.GenerateAPIKey()
	other, _ := client.GenerateAPIKey()
	root := []RootUser{{APIPublicKey: key.PublicKeyHex()}}
	good := filepath.Join(dir, "good.json")
	if _, err := New(Options{OrganizationID: "org-a", RootUsers: root, StatePath: good}); err != nil {
		t.Fatal(err)
	}
	corrupt := filepath.Join(dir, "corrupt.json")
	_ = os.WriteFile(corrupt, []byte(`{"version":1,"organization":`), 0o600)
	empty := filepath.Join(dir, "empty.json")
	_ = os.WriteFile(empty, []byte(`{"version":1}`), 0o600)
	future := filepath.Join(dir, "future.json")
	_ = os.WriteFile(future, []byte(`{"version":99}`), 0o600)
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"corrupt JSON", Options{StatePath: corrupt}, "is corrupt"},
		{"missing organization", Options{StatePath: empty}, "is corrupt"},
		{"other version", Options{StatePath: future}, "has version 99"},
		{"a directory", Options{StatePath: dir}, "reading state file"},
		{"other organization", Options{StatePath: good, OrganizationID: "org-b"}, "holds organization org-a, not org-b"},
		{"other key", Options{StatePath: good, RootUsers: []RootUser{{APIPublicKey: other.PublicKeyHex()}}}, "has no user with API key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
		})
	}
	// The corrupt file is left as it was, for the user to inspect.
	if b, _ := os.ReadFile(corrupt); string(b) != `{"version":1,"organization":` {
		t.Errorf("corrupt state file was rewritten: %s", b)
	}
}

func TestNewRefusesBadOptions(t *testing.T) {
	key, _ := client.GenerateAPIKey()
	for _, tt := range []struct {
		opts Options
		want string
	}{
		{Options{RootUsers: []RootUser{{APIPublicKey: key.PublicKeyHex()}}}, "organization id is required"},
		{Options{OrganizationID: "o"}, "at least one root user"},
		{Options{OrganizationID: "o", RootUsers: []RootUser{{APIPublicKey: "02zz"}}}, "root user 1"},
		{Options{OrganizationID: "o", RootUsers: []RootUser{{APIPublicKey: key.PublicKeyHex()}}, RootQuorum: 2}, "exceeds the 1 root users"},
	} {
		if _, err := New(tt.opts); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%+v) = %v, want %q", tt.opts, err, tt.want)
		}
	}
}

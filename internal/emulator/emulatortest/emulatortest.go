// Package emulatortest starts an in-process emulator for the tests of the
// packages around it (the provider's acceptance tests, the lockout
// guard's), made one way.
package emulatortest

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/client/clienttest"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
)

// Emulator is an emulator serving on 127.0.0.1 until the test ends.
type Emulator struct {
	Srv    *emulator.Server
	URL    string
	Key    *client.APIKey // the root user's ("user-root")
	Client *client.Client // a client of it, signing with Key
}

// Start starts an emulator of organization org (named name) whose root
// user, "user-root", owns a fresh key; mutate adjusts its options.
func Start(t testing.TB, org, name string, mutate ...func(*emulator.Options)) *Emulator {
	t.Helper()
	key := clienttest.NewAPIKey(t)
	opts := emulator.Options{OrganizationID: org, OrganizationName: name,
		RootUsers: []emulator.RootUser{{UserID: "user-root", UserName: "root", APIPublicKey: key.PublicKeyHex()}}}
	for _, m := range mutate {
		m(&opts)
	}
	srv, err := emulator.New(opts)
	if err != nil {
		t.Fatalf("emulator: %v", err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Close() })
	return &Emulator{Srv: srv, URL: hs.URL, Key: key, Client: NewClient(t, hs.URL, org, key)}
}

// NewClient is a client for test code (not the provider's own) of the
// emulator at url, for org, signing with key, polling every 10-50 ms.
func NewClient(t testing.TB, url, org string, key *client.APIKey) *client.Client {
	t.Helper()
	c, err := client.New(client.Config{BaseURL: url, OrganizationID: org, APIPublicKey: key.PublicKeyHex(), APIPrivateKey: key.PrivateKeyHex(),
		PollInterval: 10 * time.Millisecond, PollIntervalMax: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

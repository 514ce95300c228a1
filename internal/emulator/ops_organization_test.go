package emulator

import (
	"slices"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/client/clienttest"
)

// get_organization_configs gives the root quorum: its threshold and its
// users, which the provider's lockout guard reads to tell a root user who
// acts through the quorum from one who needs a policy.
func TestGetOrganizationConfigsGivesTheRootQuorum(t *testing.T) {
	k2 := clienttest.NewAPIKey(t)
	e := newTestEmulator(t, func(o *Options) {
		o.RootUsers = append(o.RootUsers, RootUser{UserID: "user-2", APIPublicKey: k2.PublicKeyHex()})
		o.RootQuorum = 2
		o.Fixtures = &Fixtures{Users: []FixtureUser{{UserID: "not-root", UserName: "not root"}}}
	})
	got, err := e.client.GetOrganizationConfigs(t.Context(), client.GetOrganizationConfigsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	q := got.Configs.Quorum
	if q == nil || q.Threshold != 2 || !slices.Equal(q.UserIDs, []string{"user-root", "user-2"}) || got.Configs.Features == nil {
		t.Fatalf("configs %+v, quorum %+v: want the two root users and a threshold of 2", got.Configs, q)
	}
}

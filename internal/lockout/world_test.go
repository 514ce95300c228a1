package lockout

import (
	"context"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/client/clienttest"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator"
	"github.com/custody-labs/terraform-provider-custody/internal/emulator/emulatortest"
)

// The guard's tests run against an in-process emulator, as the provider's
// do, with no Terraform: a guard reads it through clientReader.

const testOrg = "org-lockout"

// guardUser is the user Terraform runs as in a guardWorld.
const guardUser = "user-terraform"

// testWorld is an emulator; key is the key the guard's user signs with
// (the root user's, unless a guardWorld).
type testWorld struct {
	*emulatortest.Emulator
	key *client.APIKey
}

// newTestWorld starts an emulator whose root user ("user-root") owns a
// fresh key; mutate adjusts its options.
func newTestWorld(t testing.TB, mutate ...func(*emulator.Options)) *testWorld {
	t.Helper()
	e := emulatortest.Start(t, testOrg, "Lockout Org", mutate...)
	return &testWorld{Emulator: e, key: e.Key}
}

// newTestClient is a client of the emulator at url that signs with key.
func newTestClient(t testing.TB, url string, key *client.APIKey) *client.Client {
	t.Helper()
	return emulatortest.NewClient(t, url, testOrg, key)
}

// newGuard is the guard of one command of the world's user.
func (w *testWorld) newGuard(t testing.TB, skip bool) *Guard {
	t.Helper()
	return New(clientReader{c: newTestClient(t, w.URL, w.key)}, skip)
}

// quorumOfTwo makes the root quorum two root users.
func quorumOfTwo(t testing.TB) func(*emulator.Options) {
	k2 := clienttest.NewAPIKey(t)
	return func(o *emulator.Options) {
		o.RootUsers = append(o.RootUsers, emulator.RootUser{UserID: "user-2", UserName: "approver", APIPublicKey: k2.PublicKeyHex()})
		o.RootQuorum = 2
	}
}

// clientReader is a Reader that asks the service each time (the provider
// shares its reads among a command's resources), or, with policies set,
// serves those as the command's list.
type clientReader struct {
	c        *client.Client
	policies []client.Policy
}

func (r clientReader) Identity(ctx context.Context) (*client.WhoamiResponse, error) {
	return r.c.Identity(ctx)
}

func (r clientReader) Policies(ctx context.Context) ([]client.Policy, error) {
	if r.policies != nil {
		return r.policies, nil
	}
	out, err := r.c.ListPolicies(ctx, client.ListPoliciesRequest{})
	if err != nil {
		return nil, err
	}
	return out.Policies, nil
}

func (r clientReader) RootQuorum(ctx context.Context) (*client.Quorum, error) {
	got, err := r.c.GetOrganizationConfigs(ctx, client.GetOrganizationConfigsRequest{})
	if err != nil {
		return nil, err
	}
	return got.Configs.Quorum, nil
}

func (r clientReader) PublicKey() string { return r.c.PublicKey() }

// guardWorld is the setup the GitOps kit recommends: Terraform runs as
// "terraform", a user who is not root, and the policies the root user
// created (grants) allow its policy changes.
type guardWorld struct {
	*testWorld
	grants map[string]string // grant name → policy id
}

func newGuardWorld(t testing.TB, grants ...string) *guardWorld {
	t.Helper()
	key := clienttest.NewAPIKey(t)
	w := &guardWorld{testWorld: newTestWorld(t, func(o *emulator.Options) {
		o.Fixtures = &emulator.Fixtures{Users: []emulator.FixtureUser{{UserID: guardUser, UserName: "terraform",
			APIKeys: []emulator.FixtureAPIKey{{APIKeyName: "ci", PublicKey: key.PublicKeyHex()}}}}}
	}), grants: map[string]string{}}
	w.key = key
	for _, name := range grants {
		w.addPolicy(t, grantContent(name))
	}
	return w
}

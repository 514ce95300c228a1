// Package emulator is a local, strict implementation of the custody
// service: it verifies stamps, validates bodies, keeps state (optionally in
// a file) and fails the way the real service fails. It is the backend of
// the demo and of every acceptance test, so a provider bug must show up
// here as an error, never be absorbed.
package emulator

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// Defaults for Options left zero.
const (
	DefaultLivenessWindow = 5 * time.Minute
	DefaultMaxBodyBytes   = 1 << 20
	DefaultRootUserName   = "root"
)

// RootUser is a root user of the organization and its API key.
type RootUser struct {
	UserID       string
	UserName     string
	APIPublicKey string // compressed P-256, hex
}

// Options configure a Server.
type Options struct {
	OrganizationID   string
	OrganizationName string
	// RootUsers own the API keys that may call the service; at least one.
	RootUsers []RootUser
	// RootQuorum is how many root approvals an activity needs (default 1).
	RootQuorum int
	// LivenessWindow bounds how far a submit's timestampMs may be from now.
	LivenessWindow time.Duration
	// MaxBodyBytes bounds a request body (413 beyond).
	MaxBodyBytes int64
	// StatePath, when set, is loaded at start and rewritten durably after
	// every change.
	StatePath string
	// Fixtures seed what no activity in scope creates.
	Fixtures *Fixtures
	// Faults inject failures for reliability tests (off when zero).
	Faults Faults
	// WebhookHTTPClient delivers webhooks (default: 10 s timeout).
	WebhookHTTPClient *http.Client
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// subOrgOps are the operations the emulator serves for a sub-organization;
// everything else lives in the parent organization's state only.
var subOrgOps = map[string]bool{
	"whoami": true, "update_organization_name": true, "get_activity": true, "list_activities": true,
	"list_earn_enabled_vaults": true, "list_earn_positions": true, "list_supported_assets": true,
}

// Server is the emulated service. It is an http.Handler, safe for
// concurrent use.
type Server struct {
	opts  Options
	now   func() time.Time
	mu    sync.Mutex // guards st and everything reached from it
	st    *state
	store *store
	// policyOrder is st.Policies by id, kept between votes (every vote
	// evaluates every policy in this order); nil until first needed.
	policyOrder []*client.Policy

	webhookKey ed25519.PrivateKey
	webhookKid string
	deliveries *deliverer
	faults     *faultInjector
	counts     *requestCounts

	changes uint64      // under mu: how many changes st has seen
	encoded encodeCache // under mu: see encodeState
	commits committer

	// backdated, while set, is the time instead of Options.Now: a
	// generated history (history.go) runs each request at its own moment.
	backdated atomic.Pointer[time.Time]
}

// New builds a server. With a StatePath whose file exists, state is loaded
// from it; an unreadable or corrupt file is an error, never a reset.
func New(opts Options) (*Server, error) {
	if opts.LivenessWindow <= 0 {
		opts.LivenessWindow = DefaultLivenessWindow
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.WebhookHTTPClient == nil {
		opts.WebhookHTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	s := &Server{opts: opts, counts: newRequestCounts(), store: &store{path: opts.StatePath}}
	s.now = s.clock
	st, err := s.store.load()
	if err != nil {
		return nil, err
	}
	fresh := st == nil
	if !fresh {
		err = checkRestart(st, opts)
	} else {
		st, err = s.firstStart(opts)
	}
	if err != nil {
		return nil, err
	}
	s.st = st
	if fresh {
		// The new organization is the first change: on disk, through the
		// same writer as every later change, before any request.
		s.changed()
		if err := s.commit(s.changes); err != nil {
			return nil, err
		}
	}
	s.webhookKey = ed25519.NewKeyFromSeed(st.WebhookKeySeed)
	s.webhookKid = st.WebhookKeyID
	s.faults = newFaultInjector(opts.Faults)
	s.deliveries = newDeliverer(s)
	return s, nil
}

// firstStart builds the state of a new organization.
func (s *Server) firstStart(opts Options) (*state, error) {
	if opts.OrganizationID == "" {
		return nil, errors.New("emulator: organization id is required")
	}
	if len(opts.RootUsers) == 0 {
		return nil, errors.New("emulator: at least one root user with an API public key is required")
	}
	for i, u := range opts.RootUsers {
		if _, err := client.ParsePublicKey(strings.ToLower(u.APIPublicKey)); err != nil {
			return nil, fmt.Errorf("emulator: root user %d: %w", i+1, err)
		}
	}
	if opts.RootQuorum <= 0 {
		opts.RootQuorum = 1
	}
	if opts.RootQuorum > len(opts.RootUsers) {
		return nil, fmt.Errorf("emulator: root quorum %d exceeds the %d root users", opts.RootQuorum, len(opts.RootUsers))
	}
	if opts.OrganizationName == "" {
		opts.OrganizationName = "Emulated Organization"
	}
	st := newState(opts, s.now())
	if opts.Fixtures != nil {
		if err := opts.Fixtures.apply(st, s.now()); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// checkRestart refuses options that contradict a loaded state file: the
// file is the truth about the organization, its keys and what fixtures
// seeded, and silently ignoring a different organization, key or fixtures
// would hide a mistake.
func checkRestart(st *state, opts Options) error {
	if opts.OrganizationID != "" && opts.OrganizationID != st.Organization.ID {
		return fmt.Errorf("emulator: state file %s holds organization %s, not %s", opts.StatePath, st.Organization.ID, opts.OrganizationID)
	}
	for _, u := range opts.RootUsers {
		if st.userByKey(strings.ToLower(u.APIPublicKey)) == nil {
			return fmt.Errorf("emulator: state file %s has no user with API key %s; start with a new state file to use other keys", opts.StatePath, u.APIPublicKey)
		}
	}
	if opts.Fixtures != nil {
		// Fixtures seed a new state only. Given again on a restart (the
		// documented start command, run twice), they must be what the file
		// was seeded with: it is kept as it is, and nothing is loaded twice.
		return opts.Fixtures.heldBy(st, opts.Now(), opts.StatePath)
	}
	return nil
}

// clock is the emulator's time: Options.Now, or the moment a history
// being generated has set.
func (s *Server) clock() time.Time {
	if t := s.backdated.Load(); t != nil {
		return *t
	}
	return s.opts.Now()
}

// OrganizationID is the organization the emulator serves.
func (s *Server) OrganizationID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.Organization.ID
}

// Close stops webhook deliveries in flight. The state is already on disk.
func (s *Server) Close() { s.deliveries.close() }

// ServeHTTP answers one request: faults first, then routing, body limits,
// authentication and the operation itself.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	kind, op, ok := route(r.URL.Path)
	s.counts.add(kind, op)
	if kind == routeDebug {
		s.serveDebug(w, r)
		return
	}
	if fault := s.faults.before(kind); fault != nil {
		fault.write(w)
		return
	}
	var resp *response
	switch {
	case !ok:
		resp = errorResponse(errNotFound("unknown path %s: operations live under /public/v1/submit/<operation> and /public/v1/query/<operation>", r.URL.Path))
	case kind == routeKeySet:
		if r.Method != http.MethodGet {
			resp = errorResponse(errMethod(r.Method, http.MethodGet))
			break
		}
		resp = s.keySetResponse()
	default:
		resp = s.serveOperation(r, kind, op)
	}
	if kind == routeSubmit && resp.status == http.StatusOK {
		drop, replace := s.faults.afterCommit()
		if drop {
			dropConnection(w)
			return
		}
		if replace != nil {
			resp = replace
		}
	}
	resp.write(w)
}

// serveOperation runs a stamped submit or query.
func (s *Server) serveOperation(r *http.Request, kind routeKind, op string) *response {
	if r.Method != http.MethodPost {
		return errorResponse(errMethod(r.Method, http.MethodPost))
	}
	body, apiErr := readBody(r, s.opts.MaxBodyBytes)
	if apiErr != nil {
		return errorResponse(apiErr)
	}
	var handler func(*Server, *caller, []byte) (any, *apiError)
	switch kind {
	case routeSubmit:
		spec, found := submitOps[op]
		if !found {
			return errorResponse(errNotFound("unknown submit operation %q", op))
		}
		handler = func(s *Server, c *caller, b []byte) (any, *apiError) { return s.submit(c, op, spec, b) }
	case routeQuery:
		q, found := queryOps[op]
		if !found {
			return errorResponse(errNotFound("unknown query operation %q", op))
		}
		handler = q
	}
	resp, change := s.serveLocked(r, op, body, handler)
	// An answer that changed the state goes out once the change is on disk.
	if change != 0 {
		if err := s.commit(change); err != nil {
			return errorResponse(errInternal("%v", err))
		}
	}
	return resp
}

// serveLocked runs the operation under the state lock. change is the
// number of the change it made to the state, 0 for none.
func (s *Server) serveLocked(r *http.Request, op string, body []byte, handler func(*Server, *caller, []byte) (any, *apiError)) (_ *response, change uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	before := s.changes
	resp := s.respond(r, op, body, handler)
	if s.changes == before {
		return resp, 0
	}
	return resp, s.changes
}

// respond authenticates the request and runs the operation; the caller
// holds s.mu.
func (s *Server) respond(r *http.Request, op string, body []byte, handler func(*Server, *caller, []byte) (any, *apiError)) *response {
	who, apiErr := s.authenticate(r, body)
	if apiErr != nil {
		return errorResponse(apiErr)
	}
	if who.SubOrg && !subOrgOps[op] {
		return errorResponse(errDenied("%s on sub-organization %s: the emulator models sub-organizations only for %s", op, who.OrganizationID, strings.Join(slices.Sorted(maps.Keys(subOrgOps)), ", ")))
	}
	out, apiErr := handler(s, who, body)
	if apiErr != nil {
		return errorResponse(apiErr)
	}
	return jsonResponse(http.StatusOK, out)
}

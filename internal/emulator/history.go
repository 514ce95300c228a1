package emulator

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// A generated history: the organization's activities of the last days, as
// the emulator would have recorded them, for features that read what an
// organization did (replaying recent activities against proposed
// policies). Every activity and vote goes through the emulator's own
// request path (the stamped envelope, authentication, the submit checks,
// the policies' decision), with the emulator's clock set to its moment, so
// each record is what the emulator made at that time; nothing is written
// by hand but the actors (history_actors.go). What to submit is drawn from
// the seed (history_plan.go); what becomes of it is what the state's
// policies decide.

// Defaults of HistoryOptions.
const (
	DefaultHistoryDays   = 30
	DefaultHistoryPerDay = 40
)

// HistoryOptions say what GenerateHistory makes.
type HistoryOptions struct {
	// Days is how many days back from the emulator's clock the history
	// reaches (default DefaultHistoryDays).
	Days int
	// PerDay is the average number of activities a day (default
	// DefaultHistoryPerDay): more on weekdays than at weekends.
	PerDay int
	// Seed draws what is submitted, when, by whom, and who votes: the
	// same seed on the same state makes the same activities in the same
	// order (their ids and signatures are fresh).
	Seed uint64
	// RootKeys are API keys of root users the history may act as: a few
	// activities of its own, and now and then the approval that settles
	// one. Without them it makes no root activity.
	RootKeys []*client.APIKey
}

func (o HistoryOptions) withDefaults() HistoryOptions {
	if o.Days <= 0 {
		o.Days = DefaultHistoryDays
	}
	if o.PerDay <= 0 {
		o.PerDay = DefaultHistoryPerDay
	}
	return o
}

// HistorySummary counts what GenerateHistory made.
type HistorySummary struct {
	From, To   time.Time // the window
	Seed       uint64
	Activities int
	// ByType and ByStatus count the activities by type and by their
	// status at the end.
	ByType, ByStatus map[string]int
	// Votes counts the approvals and rejections cast after submission.
	Votes int
	// SkippedRoot counts the root activities left out for want of a root
	// key.
	SkippedRoot int
}

// String is the summary on one line.
func (h HistorySummary) String() string {
	counts := func(m map[string]int, prefix string) string {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(m)) {
			parts = append(parts, fmt.Sprintf("%s %d", strings.TrimPrefix(k, prefix), m[k]))
		}
		return strings.Join(parts, ", ")
	}
	out := fmt.Sprintf("history: %d activities from %s to %s (seed %d); by type: %s; by status: %s; %d later votes",
		h.Activities, h.From.UTC().Format(time.RFC3339), h.To.UTC().Format(time.RFC3339), h.Seed,
		counts(h.ByType, client.ActivityTypePrefix), counts(h.ByStatus, "ACTIVITY_STATUS_"), h.Votes)
	if h.SkippedRoot > 0 {
		out += fmt.Sprintf("; %d root activities skipped (no root key)", h.SkippedRoot)
	}
	return out
}

// historyRemoteAddr is where the history's requests come from, for the IP
// allowlist.
const historyRemoteAddr = "127.0.0.1:0"

// GenerateHistory makes the organization's activities of the last
// opts.Days days, ending at the emulator's clock: first the actors
// (EnsureHistoryActors), then each activity and vote in time order,
// through the request path, at its own moment. It holds the state for the
// whole run, so no other request sees the clock moved, and it delivers no
// webhooks (those moments are past). The state file, if any, is written
// once at the end. A request identical to one an earlier history sent
// (the same seed and clock) is the same request to the emulator, which
// answers with what it did then: that history is not made twice. A
// request the emulator refuses (a 4xx, other than a vote the policies do
// not let that user cast) stops the run with an error; what was made
// until then stays.
func (s *Server) GenerateHistory(opts HistoryOptions) (HistorySummary, error) {
	opts = opts.withDefaults()
	s.mu.Lock()
	sum, err := s.generateHistory(opts)
	change := s.changes
	s.mu.Unlock()
	if cerr := s.commit(change); err == nil {
		err = cerr
	}
	return sum, err
}

// historyActor is one actor a run acts as; key is nil for a root user
// without a key.
type historyActor struct {
	userID string
	key    *client.APIKey
	root   bool
}

// historyRun is one GenerateHistory, under s.mu.
type historyRun struct {
	s       *Server
	actors  []historyActor // historyUserSpecs, then the root keys
	created []string       // the activities made, in order
	votes   int
}

func (s *Server) generateHistory(opts HistoryOptions) (HistorySummary, error) {
	end := s.now()
	start := s.historyWindowStart(opts)
	sum := HistorySummary{From: start, To: end, Seed: opts.Seed, ByType: map[string]int{}, ByStatus: map[string]int{}}
	var roots []historyActor
	for i, k := range opts.RootKeys {
		u := s.st.userByKey(k.PublicKeyHex())
		if u == nil || !u.Root {
			return sum, fmt.Errorf("emulator: history: root key %d (%s) is not the API key of a root user", i+1, k.PublicKeyHex())
		}
		roots = append(roots, historyActor{userID: u.UserID, key: k, root: true})
	}
	if len(roots) == 0 {
		roots = append(roots, historyActor{root: true}) // the plans' root user, without a key
	}
	actors, err := s.ensureHistoryActors(start.Add(-time.Hour))
	if err != nil {
		return sum, err
	}
	run := &historyRun{s: s}
	for _, u := range actors.Users {
		run.actors = append(run.actors, historyActor{userID: u.UserID, key: u.APIKey})
	}
	run.actors = append(run.actors, roots...)
	plans := planHistory(opts, start, end, actors)

	// The past delivers no webhooks, and every request runs at its moment.
	deliveries := s.deliveries
	s.deliveries = mutedDeliverer(s)
	defer func() {
		s.deliveries = deliveries
		s.backdated.Store(nil)
	}()
	err = run.play(plans, end)
	run.mergeOrder()
	for _, id := range run.created {
		act := s.st.Activities[id].Activity
		sum.Activities++
		sum.ByType[act.Type]++
		sum.ByStatus[act.Status]++
	}
	sum.Votes = run.votes
	for _, p := range plans {
		if run.actors[p.actor].key == nil {
			sum.SkippedRoot++
		}
	}
	return sum, err
}

// historyWindowStart is where a history of opts ending now begins.
func (s *Server) historyWindowStart(opts HistoryOptions) time.Time {
	return s.now().Add(-time.Duration(opts.Days) * 24 * time.Hour)
}

// mutedDeliverer delivers nothing: it is closed from the start.
func mutedDeliverer(s *Server) *deliverer {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return &deliverer{s: s, ctx: ctx, cancel: cancel}
}

// mergeOrder puts the history's activities among those the state held
// before, by creation time, so that list_activities (newest first, by
// creation order) lists them as they happened; the others keep their
// order.
func (r *historyRun) mergeOrder() {
	st := r.s.st
	made := map[string]bool{}
	for _, id := range r.created {
		made[id] = true
	}
	created := func(id string) time.Time {
		t, _ := st.Activities[id].Activity.CreatedAt.Time()
		return t
	}
	var before []string
	for _, id := range st.ActivityOrder {
		if !made[id] {
			before = append(before, id)
		}
	}
	order := make([]string, 0, len(st.ActivityOrder))
	i := 0
	for _, id := range before {
		for i < len(r.created) && created(r.created[i]).Before(created(id)) {
			order = append(order, r.created[i])
			i++
		}
		order = append(order, id)
	}
	st.ActivityOrder = append(order, r.created[i:]...)
}

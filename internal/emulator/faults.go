package emulator

import (
	"maps"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// Faults make the service misbehave on purpose, for reliability tests.
// Each kind applies to a fraction of requests (Rate, 0..1) and/or to the
// first N requests (First). The zero value injects nothing.
type Faults struct {
	// RateLimited answers 429 with Retry-After: RetryAfterSeconds.
	RateLimited       FaultRate
	RetryAfterSeconds int
	// Internal answers 500; Unavailable answers 503. Neither commits.
	Internal    FaultRate
	Unavailable FaultRate
	// Latency delays requests by Delay before they are served.
	Latency FaultRate
	Delay   time.Duration
	// DropAfterCommit runs a submit, commits its activity, then closes the
	// connection without answering: the client cannot know it succeeded.
	DropAfterCommit FaultRate
	// InternalAfterCommit runs a submit, commits its activity, then answers
	// 500 as Internal does: a client that takes the 500 for "nothing
	// happened" and rebuilds its request acts twice; one that resends the
	// identical body gets the same activity back.
	InternalAfterCommit FaultRate
	// StaleRetry refuses a resubmission of a body the service already
	// committed as the liveness check refuses a timestamp outside its
	// window (400): what a retry meets when the outage that lost the first
	// answer outlasted the window. Without it, that takes a retry backoff
	// longer than LivenessWindow, which the jitter makes a matter of luck.
	StaleRetry FaultRate
	// Down answers every request 503 while set (a service that stays down).
	Down bool
	// Seed makes the random choices repeatable (0: random).
	Seed uint64
}

// FaultRate selects requests: the first First of them, and then each with
// probability Rate.
type FaultRate struct {
	Rate  float64
	First int
}

type faultInjector struct {
	mu       sync.Mutex
	f        Faults
	rng      *rand.Rand
	seen     map[*FaultRate]int
	injected map[string]int // by kind, for tests that must show faults fired
}

func newFaultInjector(f Faults) *faultInjector {
	seed := f.Seed
	if seed == 0 {
		seed = rand.Uint64()
	}
	return &faultInjector{f: f, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), seen: map[*FaultRate]int{},
		injected: map[string]int{}}
}

// SetFaults replaces the faults in force (e.g. to bring a "down" service
// back up in the middle of a test).
func (s *Server) SetFaults(f Faults) {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.f = f
	s.faults.seen = map[*FaultRate]int{}
	if f.Seed != 0 {
		s.faults.rng = rand.New(rand.NewPCG(f.Seed, f.Seed^0x9e3779b97f4a7c15))
	}
}

// InjectedFaults returns how many faults of each kind were injected since
// the server started: "down", "429", "503", "500", "latency",
// "drop-after-commit" and "500-after-commit".
func (s *Server) InjectedFaults() map[string]int {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	return maps.Clone(s.faults.injected)
}

func (fi *faultInjector) hit(r *FaultRate) bool {
	if r.First > 0 && fi.seen[r] < r.First {
		fi.seen[r]++
		return true
	}
	return r.Rate > 0 && fi.rng.Float64() < r.Rate
}

// before picks the fault for a request before it is served, if any. The key
// set and debug endpoints are never faulted.
func (fi *faultInjector) before(kind routeKind) *response {
	if kind != routeSubmit && kind != routeQuery {
		return nil
	}
	fi.mu.Lock()
	defer fi.mu.Unlock()
	if fi.f.Latency.Rate > 0 || fi.f.Latency.First > 0 {
		if fi.hit(&fi.f.Latency) {
			fi.injected["latency"]++
			d := fi.f.Delay
			fi.mu.Unlock()
			time.Sleep(d)
			fi.mu.Lock()
		}
	}
	switch {
	case fi.f.Down:
		fi.injected["down"]++
		return errorResponse(&apiError{http.StatusServiceUnavailable, client.CodeUnavailable, "injected fault: the service is down"})
	case fi.hit(&fi.f.RateLimited):
		fi.injected["429"]++
		r := errorResponse(&apiError{http.StatusTooManyRequests, client.CodeResourceExhausted, "injected fault: rate limit exceeded"})
		r.header.Set("Retry-After", strconv.Itoa(max(fi.f.RetryAfterSeconds, 0)))
		return r
	case fi.hit(&fi.f.Unavailable):
		fi.injected["503"]++
		return errorResponse(&apiError{http.StatusServiceUnavailable, client.CodeUnavailable, "injected fault: service unavailable"})
	case fi.hit(&fi.f.Internal):
		fi.injected["500"]++
		return errorResponse(&apiError{http.StatusInternalServerError, client.CodeInternal, "injected fault: internal error"})
	}
	return nil
}

// afterCommit picks the fault for a submit whose activity is committed
// and whose answer is ready, if any: the answer is dropped, or replaced by
// a 500.
func (fi *faultInjector) afterCommit() (drop bool, replace *response) {
	fi.mu.Lock()
	defer fi.mu.Unlock()
	switch {
	case fi.hit(&fi.f.DropAfterCommit):
		fi.injected["drop-after-commit"]++
		return true, nil
	case fi.hit(&fi.f.InternalAfterCommit):
		fi.injected["500-after-commit"]++
		return false, errorResponse(&apiError{http.StatusInternalServerError, client.CodeInternal, "injected fault: internal error after the activity was committed"})
	}
	return false, nil
}

// staleRetry tells whether a resubmission of a committed body is refused
// as stale.
func (fi *faultInjector) staleRetry() bool {
	fi.mu.Lock()
	defer fi.mu.Unlock()
	if fi.hit(&fi.f.StaleRetry) {
		fi.injected["stale-retry"]++
		return true
	}
	return false
}

// dropConnection closes the connection without an answer.
func dropConnection(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	// Not hijackable (HTTP/2): abort the handler, which resets the stream.
	panic(http.ErrAbortHandler)
}

package emulator

import (
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"
)

// requestCounts counts requests by kind and operation, for benchmarks
// that report requests per resource, and records when the latest of them
// arrived, for tests of the provider's request rate.
type requestCounts struct {
	mu       sync.Mutex
	n        map[string]int
	arrivals []Arrival
}

// maxArrivals bounds the arrivals kept: the latest are kept, so that a
// long-running emulator does not grow without end.
const maxArrivals = 1 << 16

// Arrival is one request as it arrived: when, by the real clock (not
// Options.Now, which tests may stop), and its key in RequestCounts.
type Arrival struct {
	At        time.Time
	Operation string
}

func newRequestCounts() *requestCounts { return &requestCounts{n: map[string]int{}} }

func (c *requestCounts) add(kind routeKind, op string) {
	if kind == routeDebug {
		return
	}
	key := string(kind) + "/" + op
	c.mu.Lock()
	defer c.mu.Unlock()
	at := time.Now() // under the lock, so that the arrivals stay in order
	c.n[key]++
	if len(c.arrivals) == maxArrivals {
		c.arrivals = slices.Delete(c.arrivals, 0, maxArrivals/2)
	}
	c.arrivals = append(c.arrivals, Arrival{At: at, Operation: key})
}

func (c *requestCounts) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n, c.arrivals = map[string]int{}, nil
}

// RequestCounts returns a copy of the counts, keyed "submit/<op>",
// "query/<op>", "jwks/jwks" or "unknown/".
func (s *Server) RequestCounts() map[string]int {
	s.counts.mu.Lock()
	defer s.counts.mu.Unlock()
	return maps.Clone(s.counts.n)
}

// RequestArrivals returns a copy of the latest requests' arrivals (up to
// 65536 of them), in the order they arrived.
func (s *Server) RequestArrivals() []Arrival {
	s.counts.mu.Lock()
	defer s.counts.mu.Unlock()
	return slices.Clone(s.counts.arrivals)
}

// serveDebug answers GET /debug/requests (the counts) and
// POST /debug/requests/reset (the counts and the arrivals). They need no stamp: the emulator is a local
// test service, and they reveal nothing of its state.
func (s *Server) serveDebug(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/debug/requests" && r.Method == http.MethodGet:
		jsonResponse(http.StatusOK, s.RequestCounts()).write(w)
	case r.URL.Path == "/debug/requests/reset" && r.Method == http.MethodPost:
		s.counts.reset()
		w.WriteHeader(http.StatusNoContent)
	default:
		errorResponse(errNotFound("unknown debug path %s", r.URL.Path)).write(w)
	}
}

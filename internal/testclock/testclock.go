// Package testclock is the clock the tests of the client and the emulator
// set and move themselves, safe for concurrent use.
package testclock

import (
	"context"
	"sync"
	"time"
)

// Clock reads the time the test set, and moves when the test says so, or
// by a fixed tick before every reading.
type Clock struct {
	mu   sync.Mutex
	t    time.Time
	tick time.Duration
}

// New is a clock at t that moves only by Advance (or Sleep).
func New(t time.Time) *Clock { return &Clock{t: t} }

// Ticking is a clock at t that moves by tick before every reading, so that
// readings one after the other are distinct and increasing.
func Ticking(t time.Time, tick time.Duration) *Clock { return &Clock{t: t, tick: tick} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(c.tick)
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Sleep is a sleep that takes no time: it advances the clock by d and
// returns ctx's error, so that waits on elapsed time run instantly.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	c.Advance(d)
	return ctx.Err()
}

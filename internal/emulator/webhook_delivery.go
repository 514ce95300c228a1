package emulator

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

const (
	// deliveryQueueSize bounds deliveries waiting for a worker; beyond it
	// new ones are dropped, because the caller holds the server lock and
	// must never wait on a slow receiver.
	deliveryQueueSize = 256
	deliveryWorkers   = 4
	// A failed delivery is tried deliveryAttempts times in all, waiting
	// deliveryBackoff, then twice that, and so on, between attempts.
	deliveryAttempts = 4
	deliveryBackoff  = 50 * time.Millisecond
	// deliveryMaxAnswerBytes is what we read of a receiver's answer, so
	// that the connection can be reused without trusting its size.
	deliveryMaxAnswerBytes = 64 << 10
)

// delivery is one event for one endpoint.
type delivery struct {
	url            string
	organizationID string
	eventID        string // the same across retries
	body           []byte
}

// deliverer posts signed ACTIVITY_UPDATES webhooks from worker goroutines.
type deliverer struct {
	s        *Server
	http     *http.Client
	queue    chan delivery
	ctx      context.Context // cancelled by close: stops waits and requests
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	attempts int
	backoff  time.Duration
}

func newDeliverer(s *Server) *deliverer { return startDeliverer(s, deliveryQueueSize, deliveryWorkers) }

func startDeliverer(s *Server, queueSize, workers int) *deliverer {
	hc := *s.opts.WebhookHTTPClient // a copy: the caller's client stays as it was
	// The real service does not follow redirects; a 3xx is a failed attempt.
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	ctx, cancel := context.WithCancel(context.Background())
	d := &deliverer{s: s, http: &hc, queue: make(chan delivery, queueSize), ctx: ctx, cancel: cancel,
		attempts: deliveryAttempts, backoff: deliveryBackoff}
	for range workers {
		d.wg.Go(d.work)
	}
	return d
}

// close stops the workers and waits for them; deliveries still queued or
// in flight are abandoned.
func (d *deliverer) close() {
	d.cancel()
	d.wg.Wait()
}

// activityUpdated queues the activity for every endpoint that wants it. It
// runs with s.mu held, so it reads state freely but never blocks: the body
// is encoded here (the activity shares maps with state) and the queue send
// gives up at once when the queue is full.
func (d *deliverer) activityUpdated(act client.Activity) {
	if d.ctx.Err() != nil {
		return
	}
	urls := d.targets(act.OrganizationID)
	if len(urls) == 0 {
		return
	}
	body, err := json.Marshal(struct {
		Activity client.Activity `json:"activity"`
	}{act})
	if err != nil {
		log.Printf("emulator: webhook for activity %s not sent: encoding it: %v", act.ID, err)
		return
	}
	eventID := newID()
	for _, u := range urls {
		select {
		case d.queue <- delivery{url: u, organizationID: act.OrganizationID, eventID: eventID, body: body}:
		default:
			log.Printf("emulator: webhook queue full (%d): dropped event %s (activity %s) for %s", cap(d.queue), eventID, act.ID, u)
		}
	}
}

// targets lists, in endpoint id order, the URLs of the organization's
// active endpoints with an active ACTIVITY_UPDATES subscription. Caller
// holds s.mu. filtersJson is not applied: its format is not documented.
func (d *deliverer) targets(organizationID string) []string {
	var ids []string
	for id, ep := range d.s.st.WebhookEndpoints {
		if ep.IsActive && ep.OrganizationID == organizationID && slices.ContainsFunc(ep.Subscriptions, func(sub client.WebhookSubscription) bool {
			return sub.EventType == eventActivityUpdates && (sub.IsActive == nil || *sub.IsActive)
		}) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	urls := make([]string, 0, len(ids))
	for _, id := range ids {
		urls = append(urls, d.s.st.WebhookEndpoints[id].URL)
	}
	return urls
}

func (d *deliverer) work() {
	for {
		select {
		case <-d.ctx.Done():
			return
		case dl := <-d.queue:
			d.deliver(dl)
		}
	}
}

// deliver tries one delivery until it is answered 2xx, the attempts run
// out, or the deliverer closes.
func (d *deliverer) deliver(dl delivery) {
	wait := d.backoff
	var last error
	for attempt := 1; attempt <= d.attempts; attempt++ {
		if attempt > 1 {
			t := time.NewTimer(wait)
			select {
			case <-d.ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			wait *= 2
		}
		if last = d.post(dl); last == nil {
			return
		}
		if d.ctx.Err() != nil {
			return
		}
	}
	log.Printf("emulator: webhook event %s to %s abandoned after %d attempts: %v", dl.eventID, dl.url, d.attempts, last)
}

// post makes one attempt, signed afresh: the timestamp is the attempt's,
// so a receiver's replay window does not reject a late retry.
func (d *deliverer) post(dl delivery) error {
	ts := strconv.FormatInt(d.s.now().UnixMilli(), 10)
	sig := ed25519.Sign(d.s.webhookKey, client.WebhookSignedMessage(d.s.webhookKid, ts, dl.eventID, dl.body))
	req, err := http.NewRequestWithContext(d.ctx, http.MethodPost, dl.url, bytes.NewReader(dl.body))
	if err != nil {
		return err
	}
	for name, v := range map[string]string{
		"Content-Type":                         "application/json",
		client.WebhookHeaderSignature:          hex.EncodeToString(sig),
		client.WebhookHeaderSignatureKeyID:     d.s.webhookKid,
		client.WebhookHeaderSignatureAlgorithm: "ed25519",
		client.WebhookHeaderSignatureVersion:   "v1",
		client.WebhookHeaderTimestamp:          ts,
		client.WebhookHeaderEventID:            dl.eventID,
		client.WebhookHeaderOrganizationID:     dl.organizationID,
		client.WebhookHeaderEventType:          eventActivityUpdates,
		client.WebhookHeaderWebhookVersion:     "1",
	} {
		req.Header.Set(name, v)
	}
	resp, err := d.http.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, deliveryMaxAnswerBytes))
	_ = resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("answered HTTP %s", strings.TrimSpace(resp.Status))
	}
	return nil
}

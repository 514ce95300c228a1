package emulator

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// Webhook event types (protocol.md).
const eventActivityUpdates = "ACTIVITY_UPDATES"

var webhookEventTypes = []string{eventActivityUpdates, "BALANCE_CONFIRMED_UPDATES", "BALANCE_FINALIZED_UPDATES", "SEND_TRANSACTION_STATUS_UPDATES"}

func init() {
	registerSubmit(client.OpCreateWebhookEndpoint,
		// subscriptions is optional (requireFields would demand the list
		// for "subscriptions[].eventType"), so eventType is checked in
		// validateCreateWebhookEndpoint.
		[]string{"url", "name"}, validateCreateWebhookEndpoint,
		func(s *Server, who *caller, p *client.CreateWebhookEndpointParams) (any, *client.Status) {
			ep := &client.WebhookEndpoint{EndpointID: newID(), OrganizationID: who.OrganizationID, URL: p.URL, Name: p.Name, IsActive: true}
			for _, sub := range p.Subscriptions {
				active := sub.IsActive == nil || *sub.IsActive // default true, stored explicitly
				ep.Subscriptions = append(ep.Subscriptions, client.WebhookSubscription{EventType: sub.EventType, FiltersJSON: sub.FiltersJSON, IsActive: &active})
			}
			s.st.WebhookEndpoints[ep.EndpointID] = ep
			return client.WebhookEndpointResult{EndpointID: ep.EndpointID, WebhookEndpoint: copyWebhookEndpoint(ep)}, nil
		})
	registerSubmit(client.OpUpdateWebhookEndpoint,
		[]string{"endpointId"},
		func(p *client.UpdateWebhookEndpointParams) *apiError {
			// Empty url or name means "unchanged": the client leaves them out.
			if p.URL != "" {
				if e := checkWebhookURL("parameters.url", p.URL); e != nil {
					return e
				}
			}
			if p.Name != "" {
				return checkName("parameters.name", p.Name)
			}
			return nil
		},
		func(s *Server, who *caller, p *client.UpdateWebhookEndpointParams) (any, *client.Status) {
			ep := s.webhookEndpoint(who, p.EndpointID)
			if ep == nil {
				return nil, notFound("webhook endpoint %s not found", p.EndpointID)
			}
			if p.URL != "" {
				ep.URL = p.URL
			}
			if p.Name != "" {
				ep.Name = p.Name
			}
			if p.IsActive != nil {
				ep.IsActive = *p.IsActive
			}
			return client.WebhookEndpointResult{EndpointID: ep.EndpointID, WebhookEndpoint: copyWebhookEndpoint(ep)}, nil
		})
	registerSubmit(client.OpDeleteWebhookEndpoint,
		[]string{"endpointId"}, nil,
		func(s *Server, who *caller, p *client.DeleteWebhookEndpointParams) (any, *client.Status) {
			if s.webhookEndpoint(who, p.EndpointID) == nil {
				return nil, notFound("webhook endpoint %s not found", p.EndpointID)
			}
			delete(s.st.WebhookEndpoints, p.EndpointID)
			return client.DeleteWebhookEndpointResult{EndpointID: p.EndpointID}, nil
		})
	// The service's list order is not shown; the emulator sorts by id so
	// that the order is stable (state keeps no creation time for endpoints).
	registerQuery(client.QueryListWebhookEndpoints, nil, func(s *Server, who *caller, _ *client.ListWebhookEndpointsRequest) (any, *apiError) {
		out := []client.WebhookEndpoint{}
		for _, ep := range s.st.WebhookEndpoints {
			if ep.OrganizationID == who.OrganizationID {
				out = append(out, copyWebhookEndpoint(ep))
			}
		}
		slices.SortFunc(out, func(a, b client.WebhookEndpoint) int { return strings.Compare(a.EndpointID, b.EndpointID) })
		return client.ListWebhookEndpointsResponse{WebhookEndpoints: out}, nil
	})
}

func validateCreateWebhookEndpoint(p *client.CreateWebhookEndpointParams) *apiError {
	if e := checkWebhookURL("parameters.url", p.URL); e != nil {
		return e
	}
	if e := checkName("parameters.name", p.Name); e != nil {
		return e
	}
	seen := map[string]int{}
	for i, sub := range p.Subscriptions {
		at := fmt.Sprintf("parameters.subscriptions[%d]", i)
		if sub.EventType == "" {
			return errInvalid("missing required field %s.eventType", at)
		}
		if e := oneOf(at+".eventType", sub.EventType, webhookEventTypes...); e != nil {
			return e
		}
		if j, dup := seen[sub.EventType]; dup {
			return errInvalid("field %s.eventType: %s is already subscribed by subscriptions[%d]", at, sub.EventType, j)
		}
		seen[sub.EventType] = i
		if sub.FiltersJSON != "" {
			var filters map[string]any
			if err := json.Unmarshal([]byte(sub.FiltersJSON), &filters); err != nil || filters == nil {
				return errInvalid("field %s.filtersJson must be a JSON object in a string", at)
			}
		}
	}
	return nil
}

// checkWebhookURL wants an absolute http or https URL with a host. The real
// service requires public HTTPS; the emulator also takes http and loopback
// hosts so that tests can receive deliveries on 127.0.0.1.
func checkWebhookURL(field, raw string) *apiError {
	if len(raw) > client.MaxWebhookURLBytes {
		return errInvalid("field %s is %d bytes long; the limit is %d", field, len(raw), client.MaxWebhookURLBytes)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return errInvalid("field %s: %q is not an absolute http or https URL with a host", field, raw)
	}
	return nil
}

// webhookEndpoint is the caller's organization's endpoint with that id.
func (s *Server) webhookEndpoint(who *caller, id string) *client.WebhookEndpoint {
	if ep := s.st.WebhookEndpoints[id]; ep != nil && ep.OrganizationID == who.OrganizationID {
		return ep
	}
	return nil
}

// copyWebhookEndpoint copies deeply, so that an answer never aliases state
// (subscriptions hold pointers).
func copyWebhookEndpoint(ep *client.WebhookEndpoint) client.WebhookEndpoint {
	out := *ep
	out.Subscriptions = nil
	for _, sub := range ep.Subscriptions {
		if sub.IsActive != nil {
			v := *sub.IsActive
			sub.IsActive = &v
		}
		out.Subscriptions = append(out.Subscriptions, sub)
	}
	return out
}

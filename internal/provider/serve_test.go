package provider

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"weak"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

type ctxKey struct{}

// recordingServer keeps the context of its last ReadResource.
type recordingServer struct {
	tfprotov6.ProviderServer
	seen   context.Context
	during func(ctx context.Context)
}

func (r *recordingServer) ReadResource(ctx context.Context, _ *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	r.seen = ctx
	if r.during != nil {
		r.during(ctx)
	}
	return &tfprotov6.ReadResourceResponse{}, nil
}

func TestRequestContextIsTheRequestsUntilItReturns(t *testing.T) {
	parent, cancel := context.WithCancel(context.WithValue(t.Context(), ctxKey{}, "request value"))
	inner := &recordingServer{during: func(ctx context.Context) {
		if ctx.Value(ctxKey{}) != "request value" || ctx.Err() != nil {
			t.Errorf("during the request: value %v, err %v; want the request's", ctx.Value(ctxKey{}), ctx.Err())
		}
		// An interrupt (Terraform's StopProvider cancels the request's
		// context) reaches the provider's code.
		cancel()
		if !errors.Is(ctx.Err(), context.Canceled) {
			t.Errorf("after the request's cancel: err %v, want canceled", ctx.Err())
		}
		select {
		case <-ctx.Done():
		default:
			t.Error("Done is not closed after the request's cancel")
		}
	}}
	if _, err := releaseRequestContexts(inner).ReadResource(parent, &tfprotov6.ReadResourceRequest{}); err != nil {
		t.Fatal(err)
	}
	if inner.seen.Value(ctxKey{}) != nil || !errors.Is(inner.seen.Err(), context.Canceled) {
		t.Fatalf("after the request: value %v, err %v; want none and canceled", inner.seen.Value(ctxKey{}), inner.seen.Err())
	}
}

// perRequestRPCs are the requests releaseRequestContexts wraps, each sent
// with a type or function name the provider does not have: the framework
// answers with an error diagnostic, after registering the context
// (registerContext is the first line of each of its handlers).
var perRequestRPCs = []struct {
	name string
	call func(context.Context, tfprotov6.ProviderServer) error
}{
	{"ValidateResourceConfig", send(tfprotov6.ProviderServer.ValidateResourceConfig, &tfprotov6.ValidateResourceConfigRequest{TypeName: noSuchType})},
	{"UpgradeResourceState", send(tfprotov6.ProviderServer.UpgradeResourceState, &tfprotov6.UpgradeResourceStateRequest{TypeName: noSuchType})},
	{"UpgradeResourceIdentity", send(tfprotov6.ProviderServer.UpgradeResourceIdentity, &tfprotov6.UpgradeResourceIdentityRequest{TypeName: noSuchType})},
	{"ReadResource", send(tfprotov6.ProviderServer.ReadResource, &tfprotov6.ReadResourceRequest{TypeName: noSuchType})},
	{"PlanResourceChange", send(tfprotov6.ProviderServer.PlanResourceChange, &tfprotov6.PlanResourceChangeRequest{TypeName: noSuchType})},
	{"ApplyResourceChange", send(tfprotov6.ProviderServer.ApplyResourceChange, &tfprotov6.ApplyResourceChangeRequest{TypeName: noSuchType})},
	{"ImportResourceState", send(tfprotov6.ProviderServer.ImportResourceState, &tfprotov6.ImportResourceStateRequest{TypeName: noSuchType})},
	{"MoveResourceState", send(tfprotov6.ProviderServer.MoveResourceState, &tfprotov6.MoveResourceStateRequest{TargetTypeName: noSuchType})},
	{"ValidateDataResourceConfig", send(tfprotov6.ProviderServer.ValidateDataResourceConfig, &tfprotov6.ValidateDataResourceConfigRequest{TypeName: noSuchType})},
	{"ReadDataSource", send(tfprotov6.ProviderServer.ReadDataSource, &tfprotov6.ReadDataSourceRequest{TypeName: noSuchType})},
	{"CallFunction", send(tfprotov6.ProviderServer.CallFunction, &tfprotov6.CallFunctionRequest{Name: "nothing"})},
}

const noSuchType = "custody_nothing"

// send calls one method of a server with req, keeping only its error.
func send[Req, Resp any](method func(tfprotov6.ProviderServer, context.Context, *Req) (*Resp, error), req *Req) func(context.Context, tfprotov6.ProviderServer) error {
	return func(ctx context.Context, s tfprotov6.ProviderServer) error {
		_, err := method(s, ctx, req)
		return err
	}
}

// requestPayload hangs off a request's context; it is large enough to get
// an allocation of its own, so that only a reference to it keeps it alive.
type requestPayload struct{ _ [1 << 10]byte }

// contextKeptAfterRequest sends one request whose context carries a payload
// and reports whether, after the request has returned and a garbage
// collection has run, anything still reaches the payload. It decides by
// reachability, not by timing or heap size: runtime.GC returns after a
// full cycle, which clears the weak pointers of whatever it freed.
//
//go:noinline
func contextKeptAfterRequest(t *testing.T, s tfprotov6.ProviderServer, call func(context.Context, tfprotov6.ProviderServer) error) bool {
	t.Helper()
	payload := new(requestPayload)
	seen := weak.Make(payload)
	if err := call(context.WithValue(context.Background(), ctxKey{}, payload), s); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.KeepAlive(s)
	return seen.Value() != nil
}

// TestFrameworkStillLeaksRequestContexts is the reason serve.go exists: the
// framework's own server keeps every request's context (see
// NewProtocol6Server). It fails once a framework release stops doing so.
func TestFrameworkStillLeaksRequestContexts(t *testing.T) {
	for _, rpc := range perRequestRPCs {
		t.Run(rpc.name, func(t *testing.T) {
			if !contextKeptAfterRequest(t, providerserver.NewProtocol6(New("test")())(), rpc.call) {
				t.Fatalf("%s's context was released after the request: the framework no longer leaks: remove serve.go's workaround and use providerserver.Serve", rpc.name)
			}
		})
	}
}

// TestFrameworkRetainsNoRequestContexts: through the wrapper, nothing keeps
// a request's context once the request has returned.
func TestFrameworkRetainsNoRequestContexts(t *testing.T) {
	for _, rpc := range perRequestRPCs {
		t.Run(rpc.name, func(t *testing.T) {
			if contextKeptAfterRequest(t, NewProtocol6Server("test"), rpc.call) {
				t.Fatalf("%s's context is still reachable after the request returned", rpc.name)
			}
		})
	}
}

func TestSilenceUnreadLogs(t *testing.T) {
	for name, tc := range map[string]struct {
		environ []string
		silent  bool
	}{
		"no TF_LOG":                  {environ: []string{"HOME=/root", "PATH=/bin"}, silent: true},
		"only TF_LOG_PATH":           {environ: []string{"TF_LOG_PATH=/tmp/tf.log"}, silent: true},
		"only core logs":             {environ: []string{"TF_LOG_CORE=trace"}, silent: true},
		"TF_LOG set but empty":       {environ: []string{"TF_LOG="}, silent: true},
		"TF_LOG":                     {environ: []string{"TF_LOG=debug"}},
		"TF_LOG_PROVIDER":            {environ: []string{"TF_LOG_PROVIDER=trace"}},
		"this provider's own level":  {environ: []string{"TF_LOG_PROVIDER_CUSTODY=debug"}},
		"a framework subsystem only": {environ: []string{"TF_LOG_SDK_FRAMEWORK=trace"}},
	} {
		t.Run(name, func(t *testing.T) {
			set := map[string]string{}
			silenceUnreadLogs(tc.environ, func(k, v string) error { set[k] = v; return nil })
			if !tc.silent {
				if len(set) != 0 {
					t.Fatalf("logs were asked for, but levels were set: %v", set)
				}
				return
			}
			for _, k := range sdkLogLevels {
				if set[k] != "off" {
					t.Errorf("%s = %q, want off", k, set[k])
				}
			}
		})
	}
}

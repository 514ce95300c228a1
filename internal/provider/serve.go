package provider

import (
	"context"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
)

// Address is the provider's registry address.
const Address = "registry.terraform.io/custody-labs/custody"

// Serve runs the provider as a plugin of Terraform; with debug, a debugger
// can attach (Terraform then reaches it through TF_REATTACH_PROVIDERS). It
// is providerserver.Serve with unread logs silenced and the request
// contexts released, see ServeFramework.
func Serve(version string, debug bool) error { return ServeFramework(Address, New(version), debug) }

// ServeFramework serves any framework provider the way Serve serves this
// one: logs nobody reads are off (silenceUnreadLogs) and each request's
// context is released when it returns (NewProtocol6Server). The
// benchmark's floor provider is served through it too, so that it differs
// from this provider only in what its resources do.
func ServeFramework(address string, p func() provider.Provider, debug bool) error {
	silenceUnreadLogs(os.Environ(), os.Setenv)
	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	return tf6server.Serve(address, func() tfprotov6.ProviderServer {
		return releaseRequestContexts(providerserver.NewProtocol6(p())())
	}, opts...)
}

// sdkLogLevels are the variables that set the levels of the provider's log
// and of the plugin SDK's subsystems.
var sdkLogLevels = []string{"TF_LOG_PROVIDER", "TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK"}

// silenceUnreadLogs turns the provider's logs off when nobody will read
// them. Unless told otherwise, the plugin SDK logs every request at trace
// level, as JSON lines on stderr, and leaves the filtering to Terraform,
// which parses each line and, without TF_LOG or TF_LOG_PROVIDER, drops it.
// At 1000 resources that was about 54 lines per resource in a plan and a
// quarter of the provider's CPU (pprof), plus Terraform's parsing.
// Terraform starts the provider with its own environment, so any TF_LOG*
// variable that makes provider logs visible (all but TF_LOG_CORE and
// TF_LOG_PATH, which alone shows nothing) leaves the levels as they are.
func silenceUnreadLogs(environ []string, setenv func(key, value string) error) {
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "TF_LOG") && name != "TF_LOG_CORE" && name != "TF_LOG_PATH" && value != "" {
			return
		}
	}
	for _, name := range sdkLogLevels {
		_ = setenv(name, "off")
	}
}

// NewProtocol6Server is the framework's protocol 6 server for this provider,
// wrapped so that each request's context is released when the request
// returns.
//
// The defect, in terraform-plugin-framework v1.19.0 (the version in go.mod;
// TestFrameworkStillLeaksRequestContexts fails once a release fixes it):
//   - providerserver/providerserver.go:119: Serve builds one
//     proto6server.Server, and terraform-plugin-go v0.31.0 asks for it once
//     per process (tfprotov6/tf6server/plugin.go:48), so it lives as long as
//     the process does.
//   - internal/proto6server/serve.go:24-30: registerContext, the first call
//     of every RPC handler (e.g. server_readresource.go:18,
//     server_planresourcechange.go:19), wraps the request's context in
//     context.WithCancel and appends the CancelFunc to s.contextCancels
//     (serve.go:20).
//   - serve.go:32-39: only cancelRegisteredContexts empties that slice, and
//     only StopProvider calls it (serve.go:42-46); Terraform sends
//     StopProvider only on an interrupt.
//
// So every request leaves one CancelFunc behind for good, and through it the
// cancelCtx whose parent is the request's whole context chain: what
// tf6server built for the request (tfprotov6/tf6server/server.go:458-469
// loggingContext: the per-request terraform-plugin-log loggers and their
// copied options; :447-454 stoppableContext; the RPC and resource fields,
// e.g. :758-763) over gRPC's, which holds the request's
// *transport.ServerStream (google.golang.org/grpc v1.79.3 server.go:1428).
// A heap profile of requests through tf6server alone puts most of the
// retained bytes in the tf6server loggers (LoggerOpts.Copy, hclog.New):
// about 11 KiB per request there; about 16 KiB measured through Terraform,
// with gRPC's stream; four requests per resource in a plan. At 1000
// resources that was 72 MiB of live heap and a peak RSS of 160 MiB.
//
// The wrapper hands the framework a context that forgets its parent when
// the request returns, so only the framework's cancelCtx and CancelFunc
// stay behind, a few hundred bytes.
func NewProtocol6Server(version string) tfprotov6.ProviderServer {
	return releaseRequestContexts(providerserver.NewProtocol6(New(version)())())
}

type releasingServer struct {
	tfprotov6.ProviderServer
}

// releasingListServer is releasingServer for a server with list resources
// (terraform query). Embedding hides the methods of the optional
// interfaces tf6server looks for by type assertion, so a wrapper that
// only embedded ProviderServer would answer every list request "not
// implemented"; this one passes them on (streams, left alone as above).
type releasingListServer struct {
	releasingServer
	tfprotov6.ListResourceServer
}

func releaseRequestContexts(s tfprotov6.ProviderServer) tfprotov6.ProviderServer {
	if l, ok := s.(tfprotov6.ListResourceServer); ok {
		return releasingListServer{releasingServer{s}, l}
	}
	return releasingServer{s}
}

// releasedContext stands in for a request's context after the request: it
// is canceled, as the request's own context is by then, and holds no values.
var releasedContext = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// requestContext is the request's context until release, and
// releasedContext after it.
type requestContext struct {
	mu     sync.RWMutex
	parent context.Context
}

func (c *requestContext) get() context.Context {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.parent == nil {
		return releasedContext
	}
	return c.parent
}

func (c *requestContext) release() {
	c.mu.Lock()
	c.parent = nil
	c.mu.Unlock()
}

func (c *requestContext) Deadline() (time.Time, bool) { return c.get().Deadline() }
func (c *requestContext) Done() <-chan struct{}       { return c.get().Done() }
func (c *requestContext) Err() error                  { return c.get().Err() }
func (c *requestContext) Value(key any) any           { return c.get().Value(key) }

// released calls f with a context released when f returns.
func released[Req, Resp any](ctx context.Context, f func(context.Context, *Req) (*Resp, error), req *Req) (*Resp, error) {
	rc := &requestContext{parent: ctx}
	defer rc.release()
	return f(rc, req)
}

// The requests Terraform sends per resource instance or data source read.
// Those sent once per process (schema, configure) leak one context each
// and are left alone; so are the streaming ones, which outlive the call.

func (s releasingServer) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	return released(ctx, s.ProviderServer.ValidateResourceConfig, req)
}

func (s releasingServer) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	return released(ctx, s.ProviderServer.UpgradeResourceState, req)
}

func (s releasingServer) UpgradeResourceIdentity(ctx context.Context, req *tfprotov6.UpgradeResourceIdentityRequest) (*tfprotov6.UpgradeResourceIdentityResponse, error) {
	return released(ctx, s.ProviderServer.UpgradeResourceIdentity, req)
}

func (s releasingServer) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	return released(ctx, s.ProviderServer.ReadResource, req)
}

func (s releasingServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	return released(ctx, s.ProviderServer.PlanResourceChange, req)
}

func (s releasingServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	return released(ctx, s.ProviderServer.ApplyResourceChange, req)
}

func (s releasingServer) ImportResourceState(ctx context.Context, req *tfprotov6.ImportResourceStateRequest) (*tfprotov6.ImportResourceStateResponse, error) {
	return released(ctx, s.ProviderServer.ImportResourceState, req)
}

func (s releasingServer) MoveResourceState(ctx context.Context, req *tfprotov6.MoveResourceStateRequest) (*tfprotov6.MoveResourceStateResponse, error) {
	return released(ctx, s.ProviderServer.MoveResourceState, req)
}

func (s releasingServer) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	return released(ctx, s.ProviderServer.ValidateDataResourceConfig, req)
}

func (s releasingServer) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	return released(ctx, s.ProviderServer.ReadDataSource, req)
}

func (s releasingServer) CallFunction(ctx context.Context, req *tfprotov6.CallFunctionRequest) (*tfprotov6.CallFunctionResponse, error) {
	return released(ctx, s.ProviderServer.CallFunction, req)
}

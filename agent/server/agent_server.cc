#include "agent/server/agent_server.h"

#include <unistd.h>

#include <boost/asio.hpp>

#include "agent/measure/sandbox.h"
#include "agent/server/log.h"
#include "agent/server/server_context.h"
#include "agent/server/session.h"
#include "agent/server/sysinfo.h"

namespace ktune::agent {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

// As whom and within which limits kernels run: as root, never as root.
Result<Sandbox> SandboxFor(const AgentOptions& options, const std::string& store_root) {
  Sandbox sandbox;
  sandbox.limits = options.limits;
  if (::geteuid() == 0) {  // kernels never run as root
    auto user = LookupUser(options.run_as);
    if (!user.ok()) return user.status().WithContext("--run-as");
    KT_RETURN_IF_ERROR(CheckReachable(*user, store_root));
    sandbox.user = *user;
  }
  return sandbox;
}

// Everything the sessions share, the Measurer started.
Result<std::unique_ptr<ServerContext>> ContextFor(asio::io_context& io,
                                                  const AgentOptions& options) {
  KT_ASSIGN_OR_RETURN(Store store, Store::Open(options.store_dir));
  KT_ASSIGN_OR_RETURN(CpuId cpu, DetectCpu(options.fake_cpuinfo));
  auto context = std::make_unique<ServerContext>(io, std::move(store), std::move(cpu));
  context->system_root = options.fake_system_root;
  context->token = options.token;
  context->seal = options.token.has_value() && options.seal;
  context->limits = {options.max_bundle_bytes, options.store_quota_bytes};
  KT_ASSIGN_OR_RETURN(Sandbox sandbox, SandboxFor(options, context->store.root()));
  KT_ASSIGN_OR_RETURN(
      context->measurer,
      Measurer::Create(CpuModelKey(context->cpu), context->store.layout().pmu_budgets(),
                       options.fake_counter_budget, options.exec_wrapper, std::move(sandbox)));
  return context;
}

}  // namespace

AgentServer::AgentServer(asio::io_context& io, std::unique_ptr<ServerContext> context)
    : acceptor_(io), retry_(io), context_(std::move(context)) {}

AgentServer::~AgentServer() {
  Shutdown();
}

Result<std::unique_ptr<AgentServer>> AgentServer::Create(asio::io_context& io,
                                                         const AgentOptions& options) {
  KT_ASSIGN_OR_RETURN(std::unique_ptr<ServerContext> context, ContextFor(io, options));
  std::unique_ptr<AgentServer> server(new AgentServer(io, std::move(context)));
  KT_RETURN_IF_ERROR(server->Listen(options.listen));
  server->Accept();
  return server;
}

Status AgentServer::Listen(const HostPort& at) {
  boost::system::error_code ec;
  auto addr = asio::ip::make_address(at.host, ec);
  if (ec) return InvalidArgument("listen address '" + at.host + "': " + ec.message());
  tcp::endpoint ep(addr, at.port);
  acceptor_.open(ep.protocol(), ec);
  if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor_.bind(ep, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return IoError("listen on " + at.ToString() + ": " + ec.message());
  return Status::Ok();
}

HostPort AgentServer::endpoint() const {
  boost::system::error_code ec;
  auto ep = acceptor_.local_endpoint(ec);
  return {ep.address().to_string(), ep.port()};
}

void AgentServer::Accept() {
  acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (ec) {
      // Out of file descriptors, say: try again shortly instead of spinning.
      Log(LogLevel::kWarn, "accept: " + ec.message());
      retry_.expires_after(std::chrono::milliseconds(100));
      retry_.async_wait([this](boost::system::error_code wait_ec) {
        if (!wait_ec) Accept();
      });
      return;
    }
    socket.set_option(tcp::no_delay(true), ec);
    std::make_shared<Session>(std::move(socket), *context_)->Start();
    Accept();
  });
}

void AgentServer::Serve(int fd) {
  tcp::socket socket(acceptor_.get_executor());
  boost::system::error_code ec;
  socket.assign(tcp::v4(), fd, ec);
  if (ec) {
    ::close(fd);
    Log(LogLevel::kWarn, "serve: " + ec.message());
    return;
  }
  std::make_shared<Session>(std::move(socket), *context_)->Start();
}

bool AgentServer::measuring() const {
  return !context_->runs.empty();
}

void AgentServer::Shutdown() {
  boost::system::error_code ec;
  acceptor_.close(ec);
  retry_.cancel();
  if (context_->measurer) context_->measurer->Stop();
}

}  // namespace ktune::agent

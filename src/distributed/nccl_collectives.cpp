// The NCCL implementation of the Collectives seam: c10d's TCPStore for the rendezvous (rank 0 serves
// it, or torchrun's agent does) and c10d's ProcessGroupNCCL for the collectives, as torch.distributed does under
// init_process_group("nccl"). Compiled only where libtorch has CUDA and c10d NCCL
// (ACCELBENCH_WITH_NCCL, set by CMake with USE_C10D_NCCL).
#include "distributed/collectives.h"

#include <fmt/format.h>

#include <cstdlib>
#include <stdexcept>

#if defined(ACCELBENCH_WITH_NCCL)
#include <ATen/DeviceAccelerator.h>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#endif

namespace accelbench {

#if defined(ACCELBENCH_WITH_NCCL)
namespace {

class NcclWork final : public CollectiveWork {
 public:
  explicit NcclWork(c10::intrusive_ptr<c10d::Work> work) : work_(std::move(work)) {}
  void wait() override { work_->wait(); }
  std::optional<double> duration_s() override {
    try {
      return static_cast<double>(work_->getDuration()) / 1e3;  // needs timing on (enable_timing)
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }

 private:
  c10::intrusive_ptr<c10d::Work> work_;
};

class NcclCollectives final : public Collectives {
 public:
  explicit NcclCollectives(const Rendezvous& info) : rank_(info.rank), world_(info.world_size) {
    at::accelerator::setDeviceIndex(static_cast<c10::DeviceIndex>(info.local_rank));
    // c10d's flight recorder (a trace entry, with CUDA events, per collective, for hang dumps) costs
    // host time on every collective: off unless the user asks for it (measured on the H200 at world
    // size 1, transformer bfloat16: +10% per step with it, +3% without; docs/results.md). NCCL timing
    // stays off until enable_timing().
    ::setenv("TORCH_NCCL_TRACE_BUFFER_SIZE", "0", 0);
    c10d::TCPStoreOptions store_options;
    store_options.port = static_cast<std::uint16_t>(info.master_port);
    // Rank 0 serves the store, unless torchrun's agent serves it already: then every rank is a client.
    store_options.isServer = info.rank == 0 && !info.join_agent_store;
    store_options.numWorkers = static_cast<std::size_t>(info.world_size);
    store_options.waitWorkers = store_options.isServer;
    store_options.timeout = info.timeout;
    auto tcp_store = c10::make_intrusive<c10d::TCPStore>(info.master_addr, store_options);
    // Keys under one prefix, apart from the agent's own (as torch.distributed's "default_pg/").
    store_ = c10::make_intrusive<c10d::PrefixStore>("accelbench_pg", tcp_store);
    auto options = c10d::ProcessGroupNCCL::Options::create();
    options->timeout = info.timeout;  // the watchdog ends a collective that hangs past it
    group_ = c10::make_intrusive<c10d::ProcessGroupNCCL>(store_, info.rank, info.world_size, options);
  }
  ~NcclCollectives() override {
    try {
      group_->shutdown();
    } catch (const std::exception&) {
    }
  }

  int rank() const override { return rank_; }
  int world_size() const override { return world_; }
  std::string backend() const override { return "nccl"; }

  std::shared_ptr<CollectiveWork> allreduce_sum(at::Tensor& flat) override {
    std::vector<at::Tensor> one{flat};
    c10d::AllreduceOptions opts;
    opts.reduceOp = c10d::ReduceOp::SUM;
    return std::make_shared<NcclWork>(group_->allreduce(one, opts));
  }

  void broadcast(std::vector<at::Tensor>& tensors, int root) override {
    c10d::BroadcastOptions opts;
    opts.rootRank = root;
    for (auto& t : tensors) {  // NCCL takes one tensor per call
      std::vector<at::Tensor> one{t};
      group_->broadcast(one, opts)->wait();
    }
  }

  void barrier() override { group_->barrier()->wait(); }
  void enable_timing() override { group_->enableCollectivesTiming(); }

 private:
  int rank_, world_;
  c10::intrusive_ptr<c10d::Store> store_;
  c10::intrusive_ptr<c10d::ProcessGroupNCCL> group_;
};

}  // namespace

bool nccl_available() { return true; }
std::unique_ptr<Collectives> make_nccl_collectives(const Rendezvous& info) {
  return std::make_unique<NcclCollectives>(info);
}
#else
bool nccl_available() { return false; }
std::unique_ptr<Collectives> make_nccl_collectives(const Rendezvous&) {
  throw std::runtime_error("this build of accelbench has no NCCL process group (libtorch without CUDA / c10d NCCL)");
}
#endif

}  // namespace accelbench

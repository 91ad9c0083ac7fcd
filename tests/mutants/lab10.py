"""lab10_parallel_training: mistakes students make (see tests/mutants/__init__.py).

The distributed answers run in worker processes launched by the test cells; a mistake that
crashes or deadlocks a launch fails every test cell whose launch runs it (a deadlock within
the checker's 15 to 20 s process-group timeout).
"""

from . import Mutant, mutant

DDP = "answer_ddp_bucketed"
ZERO = "answer_sharded_optimizer"
TP = "answer_tensor_parallel"
PIPE = "answer_pipeline_step"
MPI = "answer_mpi_ring_allreduce"

MUTANTS = [
    mutant(
        "mem_floor_division",
        "a shard of n_params // world_size elements (no padding)",
        "answer_memory_per_rank",
        "shard = levels[strategy], -(-n_params // world_size)",
        "shard = levels[strategy], n_params // world_size",
        "test_memory_per_rank",
    ),
    mutant(
        "mem_zero2_shards_params",
        "ZeRO-2 shards the parameters too",
        "answer_memory_per_rank",
        "params = (shard if level >= 3 else n_params) * bytes_per_param",
        "params = (shard if level >= 2 else n_params) * bytes_per_param",
        "test_memory_per_rank",
    ),
    mutant(
        "mem_adam_one_state",
        "counts one Adam value per parameter",
        "answer_memory_per_rank",
        "states = 2 if adam else 0",
        "states = 1 if adam else 0",
        "test_memory_per_rank",
    ),
    mutant(
        "ddp_no_broadcast",
        "does not broadcast rank 0's parameters: replicas start different",
        DDP,
        "        for tensor in list(module.parameters()) + list(module.buffers()):\n            dist.broadcast(tensor.data, src=0)\n",
        "",
        "test_ddp_bucketed",
    ),
    mutant(
        "ddp_sum_not_mean",
        "sums the gradients without dividing by the world size",
        DDP,
        "            flat.div_(self.world_size)\n",
        "",
        "test_ddp_bucketed",
    ),
    mutant(
        "ddp_bucket_limit_inclusive",
        "closes a bucket when it would reach the limit exactly",
        DDP,
        "if current and current_bytes + size > limit:",
        "if current and current_bytes + size >= limit:",
        ("test_ddp_bucketed", "test_ddp_overlap"),
    ),
    mutant(
        "ddp_forward_order",
        "fills the buckets in forward order",
        DDP,
        "for param in reversed([p for p in module.parameters() if p.requires_grad]):",
        "for param in [p for p in module.parameters() if p.requires_grad]:",
        "test_ddp_bucketed",  # the overlap test checks the all-reduces' sizes, which these models' buckets share
    ),
    mutant(
        "ddp_blocking_allreduce",
        "all-reduces each bucket synchronously inside the hook",
        DDP,
        "self._in_flight.append((index, flat, dist.all_reduce(flat, async_op=True)))",
        'self._in_flight.append((index, flat, dist.all_reduce(flat) or type("Done", (), {"wait": lambda s: None})()))',
        "test_ddp_overlap",
    ),
    Mutant(
        "ddp_all_in_finish",
        "registers no hooks and all-reduces every bucket in finish_gradient_synchronization",
        (
            (
                DDP,
                "                param.register_post_accumulate_grad_hook(lambda _param, index=index: gradient_ready(index))",
                "                pass",
            ),
            (
                DDP,
                "        for index, flat, work in self._in_flight:",
                "        for index, bucket in enumerate(self.buckets):\n"
                "            flat = torch.cat([p.grad.reshape(-1) for p in bucket])\n"
                "            self._in_flight.append((index, flat, dist.all_reduce(flat, async_op=True)))\n"
                "        for index, flat, work in self._in_flight:",
            ),
        ),
        frozenset({"test_ddp_overlap"}),
    ),
    mutant(
        "zero_full_optimizer",
        "every rank keeps optimizer state for every parameter",
        ZERO,
        "owned = [p for i, p in enumerate(self.params) if i % self.world_size == self.rank]",
        "owned = list(self.params)",
        "test_sharded_state",
    ),
    mutant(
        "zero_no_broadcast",
        "steps its shard but never shares the new parameters",
        ZERO,
        "        for i, param in enumerate(self.params):\n            dist.broadcast(param.data, src=i % self.world_size)\n",
        "",
        "test_sharded_optimizer",
    ),
    mutant(
        "zero_contiguous_owner",
        "owns a contiguous block of parameters but broadcasts from i % world_size",
        ZERO,
        "if i % self.world_size == self.rank]",
        "if i * self.world_size // len(self.params) == self.rank]",
        ("test_sharded_optimizer", "test_sharded_state"),
    ),
    mutant(
        "zero_empty_optimizer",
        "builds an optimizer over no parameters on a rank that owns none",
        ZERO,
        "self.local_optimizer = optimizer_cls(owned, **kwargs) if owned else None",
        "self.local_optimizer = optimizer_cls(owned, **kwargs)",
        ("test_sharded_optimizer", "test_sharded_state"),
    ),
    mutant(
        "tp_no_backward_allreduce",
        "CopyToParallel's backward returns the local gradient",
        TP,
        "        grad = grad.contiguous().clone()\n        dist.all_reduce(grad, group=ctx.group)\n        return grad, None",
        "        return grad, None",
        "test_tp_backward",
    ),
    mutant(
        "tp_reduce_in_backward_too",
        "ReduceFromParallel all-reduces the gradient in backward as well",
        TP,
        "    def backward(ctx, grad):\n        return grad, None",
        "    def backward(ctx, grad):\n        grad = grad.contiguous().clone()\n"
        "        dist.all_reduce(grad)\n        return grad, None",
        "test_tp_backward",
    ),
    mutant(
        "tp_bias_before_reduce",
        "the row-parallel layer adds its bias before the all-reduce (P times)",
        TP,
        "        out = ReduceFromParallel.apply(F.linear(x, self.weight), self.group)\n"
        "        return out if self.bias is None else out + self.bias",
        "        return ReduceFromParallel.apply(F.linear(x, self.weight, self.bias), self.group)",
        "test_tp_forward",
    ),
    mutant(
        "tp_column_split_inputs",
        "the column-parallel layer splits the input features",
        TP,
        "self.weight = nn.Parameter(linear.weight.detach().tensor_split(world, dim=0)[rank].clone())",
        "self.weight = nn.Parameter(linear.weight.detach().tensor_split(world, dim=1)[rank].clone())",
        ("test_tp_forward", "test_tp_backward"),
    ),
    mutant(
        "pipe_loss_not_divided",
        "sums the micro-batches' losses without dividing by M",
        PIPE,
        "y = F.mse_loss(y, micro_batches[m]) / m_count",
        "y = F.mse_loss(y, micro_batches[m])",
        "test_pipeline_step",
    ),
    mutant(
        "pipe_input_without_grad",
        "a received activation does not require grad: there is no input gradient to send back",
        PIPE,
        "            x.requires_grad_(True)\n",
        "",
        ("test_pipeline_step", "test_pipeline_schedule"),
    ),
    mutant(
        "pipe_deadlock",
        "never sends the first micro-batch's input gradient back: the previous stage waits forever",
        PIPE,
        "        if rank > 0:\n            dist.send(inputs[m].grad.contiguous(), dst=rank - 1)",
        "        if rank > 0 and m > 0:\n            dist.send(inputs[m].grad.contiguous(), dst=rank - 1)",
        ("test_pipeline_step", "test_pipeline_schedule"),
    ),
    mutant(
        "mpi_modifies_input",
        "reduces into the caller's array",
        MPI,
        "out = np.array(array, copy=True)",
        "out = array",
        "test_mpi_ring_allreduce",
    ),
    mutant(
        "mpi_library_allreduce",
        "calls comm.Allreduce instead of writing the ring",
        MPI,
        "    if size == 1:\n        return out\n",
        "    comm.Allreduce(array, out)\n    return out\n",
        "test_mpi_ring_allreduce",
    ),
    mutant(
        "mpi_overwrite_not_add",
        "overwrites the chunk in reduce-scatter instead of adding",
        MPI,
        "chunks[recv_i] += buffer",
        "chunks[recv_i][:] = buffer",
        "test_mpi_ring_allreduce",
    ),
    mutant(
        "fit_bandwidth_is_slope",
        "returns the slope (seconds per byte) as the bandwidth",
        "answer_alpha_beta_fit",
        '"bandwidth_bps": float(1.0 / slope) if slope > 0 else float("inf")',
        '"bandwidth_bps": float(slope)',
        "test_alpha_beta_fit",
    ),
]

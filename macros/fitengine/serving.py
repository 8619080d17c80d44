"""The serving model: what a step of one replica costs, and what users see of it.

A step processes some new tokens for the sequences in flight (one each while they decode, a
chunk of a prompt while it is prefilled). Its time is a roofline per card: bytes read against
the memory bandwidth reached plus work against the dense throughput reached (added, not
overlapped: kernels overlap them only in part, and a floor takes the slower side),
plus a fixed cost per layer (kernel launches; routing and expert dispatch for MoE layers, their
own where the format's experts run through other kernels on the card: formats.yaml `<kernels>_moe`;
more where the server runs the step without CUDA graphs, `ungraphed`),
plus the layout's collectives on the node's link. Each part at its rate: the products at the
format's where the card multiplies it natively, attention at the 16-bit rate (its queries, keys
and values stay in 16 bits), the experts read at the share of the bandwidth their kernels reach
(FP8 experts through Triton's fused_moe or DeepGEMM). Attention works on the token pairs: a decoding
token over the cache (for multi-head latent attention, the latent itself), a prompt chunk over
keys and values of each head (for latent attention, up-projected from the latents: vLLM's MLA
backend computes a prompt the way that costs fewer operations). The collectives:

- tensor parallelism: two all-reduces per layer of tokens x hidden values (Megatron-LM);
- expert parallelism: the MoE layer's all-reduce becomes a dispatch and a combine all-to-all
  of tokens x top-k x hidden values;
- pipeline stages (or llama.cpp's layer split): one transfer of tokens x hidden values between
  consecutive stages. Stages run one after another, so a step pays every stage;
- data-parallel attention (vLLM --data-parallel-size with --enable-expert-parallel): the replica
  is `dp` ranks, each running attention and the dense layers on its own requests (its own KV
  cache, its own prompt queue and token budget: vLLM runs one scheduler per rank), the experts
  spread over all the replica's cards. Each MoE layer gathers the tokens of every rank to the
  cards holding their experts and scatters the results back: vLLM's default all2all backend
  (allgather_reducescatter, vllm/config/parallel.py) is an all-gather and a reduce-scatter of
  the node's tokens x hidden values over all the cards. The ranks' steps are aligned (the expert
  layers synchronize every forward pass), so a rank's step lasts as long as the slowest: a
  decoding user waits for the prompt chunks of every rank, not only its own (the ranks' prompts
  taken to fall in the steps independently of each other).

Users share a replica: each request is prefilled (its prompt, chunk by chunk), then decoded one
token per step while the others decode too; a prefill holds up everybody's decode (the
serving engine schedules it between decode steps), so prefill time counts against speed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import pairwise

from .architecture import Architecture, Params
from .catalog import Format, Gpu, Runtime
from .layout import Layout
from .memory import bits_for, expert_padding, experts_touched, kv_bytes_per_card, weight_bytes
from .once import once, shared_once
from .runtime_defaults import batched_tokens
from .speed import all_to_all_seconds, allgather_seconds, allreduce_seconds, send_seconds
from .steps import Steady, Step
from .topology import GroupLink

# Prompt chunks evaluated one by one before the rest are taken in groups (each group costed
# at its middle chunk): the step cost grows smoothly with the chunk's position.
_EXACT_CHUNKS = 16
_GROUPS = 16
_STEADY_ROUNDS = 60  # at most, of the search for the steady cycle (it closes to a part in 10^12 in a few)
_BUSIEST = 1 - 1e-9  # the prompt queue's load stays below 1: the closed loop slows the arrivals first
_LEAST_CHUNK = 64  # a step always takes some prompt tokens (vLLM preempts decodes before starving prompts)


@dataclass(frozen=True)
class Serving:
    """How one replica of a model in a format runs on a card and a layout."""

    arch: Architecture
    params: Params
    fmt: Format
    gpu: Gpu
    runtime: Runtime
    layout: Layout
    kv_bytes: int
    unquantized: tuple[str, ...]  # parts the checkpoint keeps in 16-bit
    activation_bytes: int
    allreduces_per_layer: int
    tp_link: GroupLink | None
    pp_link: GroupLink | None
    compute_tflops: float
    ep_link: GroupLink | None = None  # all the cards of a data-parallel replica (dp > 1)
    # What a step adds when the server runs it without CUDA graphs: a decode step, a step that
    # carries a prompt chunk (Workload.cuda_graphs; 0 where the step is graphed).
    ungraphed: tuple[float, float] = (0.0, 0.0)
    # What this replica has worked out, by question (its loads, KV per sequence, collectives).
    memo: dict[tuple[object, ...], object] = field(default_factory=dict, compare=False, repr=False)
    # Its terms that do not depend on the layout (`shared_once`), shared by the replicas of one
    # model, format, card and runtime: load.serving_of hands them the same dict.
    shared: dict[str, object] = field(default_factory=dict, compare=False, repr=False)

    @once
    def alone(self) -> bool:
        """Whether the replica runs no collective (one card: no link to cross)."""
        return self.tp_link is None and self.pp_link is None and self.ep_link is None

    @shared_once
    def _weights(self) -> tuple[float, float, float]:
        """Bytes of the weights every step reads, of the experts, and of the embedding table."""
        p, fmt, kept = self.params, self.fmt, self.unquantized
        embeddings = p.embeddings * bits_for(fmt, "embeddings", kept) / 8
        expert_bytes = bits_for(fmt, "experts", kept) / 8
        return weight_bytes(p, fmt, kept) - p.experts * expert_bytes - embeddings, expert_bytes, embeddings

    @once
    def step_floor(self) -> float:
        """The least time any step of this replica takes, in seconds: the weights every step
        reads (no expert, no KV cache), its layers' fixed cost and one sequence's; `step` adds
        to these only terms that are never negative. What the layout search bounds a layout's
        speed by before it works the layout out (load.choose_layout)."""
        bandwidth, _throughput, _per_pair, fixed, per_sequence = self._step_terms
        return self._weights[0] / self.layout.tp / bandwidth + fixed + per_sequence

    def weights_read(self, tokens: int, node_tokens: int = 0, expert_weight: float = 1.0) -> float:
        """Bytes of weights a step of `tokens` tokens reads, over the tensor-parallel cards: the
        experts it touches, one embedding row per token. With data-parallel attention the experts
        are those the `node_tokens` of every rank touch, spread over the ranks. `expert_weight`:
        what an expert's byte counts for (`step` gives 1 / the share of the bandwidth its kernels reach)."""
        shared, expert_bytes, embeddings = self._weights
        expert_bytes *= expert_weight
        vocab = self.arch.vocab
        rows = embeddings * min(tokens, vocab) / vocab
        dp = self.layout.dp
        if dp == 1:
            if self.arch.moe is None or self.params.experts == 0:  # no expert touched (experts_touched's 0)
                return shared + rows
            return shared + experts_touched(self.arch, self.params, tokens) * expert_bytes + rows
        touched = experts_touched(self.arch, self.params, node_tokens or tokens * dp)
        return shared + touched * expert_bytes / dp + rows

    # --- one step -------------------------------------------------------------------

    def step(
        self,
        tokens: int,
        kv_read: float,
        attended: float,
        communicate: bool = True,
        sequences: int = 1,
        node_tokens: int = 0,
        prompt_pairs: float = 0.0,
        prompt_context: int = 0,
    ) -> Step:
        """A step processing `tokens` tokens of `sequences` sequences that reads `kv_read` bytes of
        KV cache per card (all stages) and attends over `attended` token pairs of decoding
        sequences and `prompt_pairs` of a prompt chunk whose prompt has `prompt_context` tokens
        cached before it (summed over them).

        With data-parallel attention these are one rank's; `node_tokens` are those of every rank
        in the same step (0: every rank as busy as this one), whose expert work the rank's cards
        share.
        """
        bandwidth, throughput, per_pair, fixed, per_sequence = self._step_terms
        per_prompt_pair, per_context_token = self._prompt_terms
        lay = self.layout
        dp, tp = lay.dp, lay.tp
        node_tokens = node_tokens or tokens * dp
        memory = (self.weights_read(tokens, node_tokens, self._expert_weight) / tp + kv_read) / bandwidth
        matmul_token, experts_token = self._layout_matmul_terms
        if dp == 1:
            matmul = matmul_token * tokens
        else:
            matmul = (matmul_token - experts_token) * tokens + experts_token * node_tokens / dp
        attention = per_pair * attended + per_prompt_pair * prompt_pairs + per_context_token * prompt_context
        compute = (matmul + attention) / tp / throughput
        comm = 0.0
        if communicate and not self.alone:
            key = ("communication", tokens, node_tokens)
            comm = self.memo.get(key)  # type: ignore[assignment]
            if comm is None:
                comm = self.memo[key] = self._collectives(tokens, node_tokens)
        # A step with prompt pairs carries a prompt chunk: ungraphed under decode-only graphs too.
        fixed += sequences * per_sequence + self.ungraphed[prompt_pairs > 0]
        return Step(memory + compute + comm + fixed, memory, compute, comm, fixed)

    @shared_once
    def _matmul_terms(self) -> tuple[float, float]:
        """Operations of the matrix products per token: all of them, and the experts' share, each
        counted at the step's tensor rate (`compute_tflops`). Products the format runs at a faster
        rate on this card (`Format.tensor_rate`: NVFP4's on Blackwell, MXFP4's experts on B200)
        count for that rate's share of the base one."""
        p = self.params
        linear, experts = self._rate_shares
        if linear == experts == 1.0:
            return 2 * (p.active - p.embeddings), 2 * p.experts_active
        expert_ops = 2 * p.experts_active * experts
        return 2 * (p.lm_head + (p.attention + p.mlp) * linear) + expert_ops, expert_ops

    @once
    def _layout_matmul_terms(self) -> tuple[float, float]:
        """`_matmul_terms` with the experts' products as this layout's kernels run them: over their
        padded width, at the share of the throughput reached their grouped products reach."""
        matmul_token, experts_token = self._matmul_terms
        if not experts_token:
            return matmul_token, experts_token
        experts = experts_token * self._expert_padding / self.runtime.moe_compute_share
        return matmul_token - experts_token + experts, experts

    @once
    def _expert_padding(self) -> float:
        """How many times their unpadded size this layout's experts are (`memory.expert_padding`)."""
        return expert_padding(self.arch, self.fmt, self.gpu.architecture, self.layout.expert_slices)

    @shared_once
    def _rate_shares(self) -> tuple[float, float]:
        """The base rate over the format's own, for its quantized non-expert products and for its
        experts (1 where they run at the base rate, or the card has no figure for the faster one)."""
        rate, gpu = self.fmt.tensor_rate, self.gpu
        if rate is None or gpu.architecture not in rate.architectures:
            return 1.0, 1.0
        faster = gpu.fp4_tflops if rate.rate == "fp4" else gpu.fp8_tflops
        if not faster or faster <= self.compute_tflops:
            return 1.0, 1.0
        share = self.compute_tflops / faster
        return (share if rate.parts == "linear" else 1.0), share

    @shared_once
    def _step_terms(self) -> tuple[float, float, float, float, float]:
        """What every step shares: bytes per second reached, operations per second reached,
        attention operations per token pair, the fixed cost of its layers, and of each sequence."""
        arch, rt = self.arch, self.runtime
        share = self.fmt.kernel_share  # a format whose kernels run slower than the runtime's best (NF4)
        bandwidth = self.gpu.memory_bandwidth_gbps * 1e9 * rt.bandwidth_efficiency * share
        throughput = self.compute_tflops * 1e12 * rt.compute_efficiency * share
        per_pair = 4 * arch.heads * self._attention_dim() * self._attending_layers() * self._attention_rate
        fixed = arch.layers * rt.layer_overhead_s + arch.moe_layers * rt.moe_layer_time(self._moe_kernels)
        if arch.mla is not None:
            fixed += arch.layers * rt.mla_layer_overhead_s
        return bandwidth, throughput, per_pair, fixed, rt.sequence_overhead_s

    @shared_once
    def _moe_kernels(self) -> str:
        """The format's MoE kernels on this card (formats.yaml `<kernels>_moe`), "" for the usual ones."""
        return self.fmt.kernels_on(self.gpu.architecture)

    @once
    def _expert_weight(self) -> float:
        """What a byte of an expert counts for against the bandwidth reached: the padding of this
        layout's slices (`_expert_padding`) over the share of the bandwidth the format's expert
        kernels read at on this card (Triton's fused_moe, DeepGEMM's; 1 for the others)."""
        return self._expert_padding / self.runtime.moe_bandwidth_share(self._moe_kernels)

    @shared_once
    def _prompt_terms(self) -> tuple[float, float]:
        """Attention operations per token pair of a prompt chunk, and per token of its prompt
        cached before the chunk.

        Multi-head latent attention is computed two ways (vllm/v1/attention/backends/mla/common.py):
        a decoding token attends to the cached latents themselves (heads of the latent's width, the
        decode step's `per_pair`); a prompt chunk up-projects the latents of its prompt to keys and
        values of each head and runs ordinary attention, with heads of qk_nope + qk_rope for the
        scores and v_head_dim for the values, the cached part of the prompt up-projected again at
        each chunk. Other attention computes both the same way."""
        mla, layers, rate = self.arch.mla, self._attending_layers(), self._attention_rate
        if mla is None:
            return 4 * self.arch.heads * self.arch.head_dim * layers * rate, 0.0
        heads = self.arch.heads
        per_pair = 2 * heads * (mla.qk_nope_head_dim + mla.qk_rope_head_dim + mla.v_head_dim) * layers * rate
        per_context = 2 * mla.kv_lora_rank * heads * (mla.qk_nope_head_dim + mla.v_head_dim) * layers
        return per_pair, per_context

    @shared_once
    def _attention_rate(self) -> float:
        """The step's tensor rate over the one attention runs at: its queries, keys and values stay
        in 16 bits whatever the format (vLLM's FlashAttention and FlashInfer with the default 16-bit
        KV cache), so with FP8 layers (`compute_tflops` at FP8) each attention operation counts for more."""
        return self.compute_tflops / self.gpu.bf16_tflops if self.gpu.bf16_tflops else 1.0

    def _attention_dim(self) -> int:
        mla = self.arch.mla
        return mla.kv_lora_rank + mla.qk_rope_head_dim if mla else self.arch.head_dim

    def _attending_layers(self) -> float:
        # Attention work per token pair is per layer; windowed layers are bounded in `attended`
        # by the caller only roughly, so count every layer: the floor errs on the slow side.
        return float(self.arch.layers)

    def _collectives(self, tokens: int, node_tokens: int) -> float:
        arch, lay = self.arch, self.layout
        message = tokens * arch.hidden * self.activation_bytes
        seconds = 0.0
        if lay.dp > 1 and arch.moe is not None:
            moe_layers = arch.moe_layers
            if lay.tp > 1 and self.tp_link is not None:  # the rank's own all-reduces, less the MoE layers'
                reduce = allreduce_seconds(message, lay.tp, self.tp_link, self.runtime)
                seconds += (arch.layers * self.allreduces_per_layer - moe_layers) * reduce
            if self.ep_link is not None:  # an all-gather and a reduce-scatter of every rank's tokens
                gathered = node_tokens * arch.hidden * self.activation_bytes
                seconds += moe_layers * 2 * allgather_seconds(gathered, lay.cards, self.ep_link)
            return seconds
        if lay.tp > 1 and self.tp_link is not None:
            reduce = allreduce_seconds(message, lay.tp, self.tp_link, self.runtime)
            if lay.ep > 1 and arch.moe is not None:
                moe_layers = arch.moe_layers
                dispatch = all_to_all_seconds(message * arch.moe.top_k, lay.ep, self.tp_link)
                seconds += arch.layers * self.allreduces_per_layer * reduce
                seconds += moe_layers * (2 * dispatch - reduce)
            else:
                seconds += arch.layers * self.allreduces_per_layer * reduce
        if lay.pp > 1 and self.pp_link is not None:
            seconds += (lay.pp - 1) * send_seconds(message, self.pp_link)
        return seconds

    # --- what users see -------------------------------------------------------------

    def decode_step(self, batch: int, length: float, communicate: bool = True, node_batch: int = 0) -> Step:
        """One decode step with `batch` sequences of `length` cached tokens each (`node_batch`:
        the sequences every data-parallel rank decodes together, 0 for as many on each)."""
        return self.step(batch, batch * self.kv_card(length), batch * length, communicate, batch, node_batch)

    def kv_card(self, length: float) -> float:
        """KV bytes one sequence of `length` tokens keeps on a card, summed over the pipeline stages."""
        key = ("kv", length)
        found = self.memo.get(key)
        if found is None:
            lay = self.layout
            found = kv_bytes_per_card(self.arch, math.ceil(length), self.kv_bytes, lay.tp, lay.pp) * lay.pp
            self.memo[key] = found
        return found  # type: ignore[return-value]

    def prefill_seconds(
        self,
        prompt: int,
        others: int = 0,
        others_length: float = 0,
        communicate: bool = True,
        node_others: int | None = None,
    ) -> float:
        """Time to prefill one prompt, chunk by chunk, while `others` sequences of `others_length`
        cached tokens decode in the same steps (their tokens come first out of each step's budget).
        `node_others`: with data-parallel attention, the sequences decoding on every rank (this
        one's included) beside the prompt; None for as many on each rank as on this one."""
        if prompt <= 0:
            return 0.0
        return self._prefill(prompt, others, others_length, communicate, node_others)

    def prefill_chunks(self, prompt: int, others: int = 0) -> int:
        """Steps one prompt's prefill takes beside `others` decoding sequences."""
        return math.ceil(prompt / self.chunk_tokens(others)) if prompt > 0 else 0

    def _prefill(
        self, prompt: int, others: int, others_length: float, communicate: bool, node_others: int | None
    ) -> float:
        chunk = self.chunk_tokens(others)
        chunks = math.ceil(prompt / chunk)
        others_kv = others * self.kv_card(others_length) if others else 0.0
        peers = (self.layout.dp - 1) * others if node_others is None else node_others - others

        def chunk_step(i: int) -> float:
            start = i * chunk
            size = min(chunk, prompt - start)
            tokens = size + others
            return self.step(
                tokens,
                self.kv_card(start) + others_kv,
                others * others_length,
                communicate,
                others + 1,
                tokens + peers,
                prompt_pairs=size * (start + size / 2),
                prompt_context=start,
            ).seconds

        if chunks == 1:  # the common case: a prompt within one step's budget
            return chunk_step(0)
        if chunks <= _EXACT_CHUNKS + _GROUPS:
            return sum(chunk_step(i) for i in range(chunks))
        total = sum(chunk_step(i) for i in range(_EXACT_CHUNKS))
        rest = chunks - _EXACT_CHUNKS
        edges = [_EXACT_CHUNKS + rest * g // _GROUPS for g in range(_GROUPS + 1)]
        for lo, hi in pairwise(edges):
            if hi > lo:
                total += (hi - lo) * chunk_step((lo + hi - 1) // 2)
        return total

    # --- a closed loop of users -------------------------------------------------------

    def steady(self, users: int, in_flight: int, prompt: int, answer: int, communicate: bool = True) -> Steady:
        """The steady state of `users` users, each sending a request of `prompt` tokens in and
        `answer` out when its last one is answered, with at most `in_flight` of them admitted.

        Admitted requests share every step: the decoding ones put a token each, a prompt fills
        the rest of the step's token budget, one prompt after another (first come, first
        served). So a decoding user's token waits for the prompt chunks in its steps, and a new
        prompt waits for the prompts ahead of it: a queue with one server whose service is one
        prompt's prefill (M/D/1 from the other admitted users), plus a share of a burst's wait
        (users who start together wait for each other's prompts once: the runtime's
        `arrival_burst`). Users beyond `in_flight` wait for a free place (Little's law on the
        closed loop: the answered requests' rate times the users).

        Worked out afresh at each call: load.load_at keeps the ones the searches ask again.
        """
        # With data-parallel attention the users and admitted requests are spread over the ranks;
        # what a user sees is the busiest rank's (one rank: the replica's).
        dp = self.layout.dp
        node = max(1, min(users, in_flight))  # requests in flight on the whole replica
        rank_users = math.ceil(users / dp)
        admitted = max(1, min(rank_users, in_flight // dp))
        others = admitted - 1
        node_others = max(others, node - 1)  # the other sequences of every rank in a step
        length = prompt + answer / 2  # cached tokens of a sequence halfway through its answer
        step = self.decode_step(admitted, length, communicate, max(admitted, node))
        t_d = step.seconds
        prefill = self.prefill_seconds(prompt, others, length, communicate, node_others)
        chunks = self.prefill_chunks(prompt, others)
        per_chunk = prefill / chunks
        # What a prompt adds to the steps it shares with the others' decodes (all of it alone).
        marginal = (
            prefill
            if others == 0
            else max(0.0, prefill - chunks * self.decode_step(others, length, communicate, node_others).seconds)
        )
        decodes = answer - 1

        def through(busy: float) -> tuple[float, float, float]:
            """A request's wait for the prompts ahead of it, its time per token, and the cycle
            this gives, when the prompts keep the step's budget busy `busy` of the time."""
            wait = busy / (2 * (1 - busy)) * prefill
            steps = chunks + decodes + wait / per_chunk
            shared = min(1.0, others * chunks / max(steps - chunks, 1.0))  # my decode steps that carry a prompt
            if dp > 1:  # or that wait for another rank's prompt, each rank's falling in the steps at random
                peer = min(1.0, (node_others - others) / (dp - 1) * chunks / steps)
                shared = 1 - (1 - shared) * (1 - peer) ** (dp - 1)
            tpot = shared * per_chunk + (1 - shared) * t_d
            return wait, tpot, wait + prefill + decodes * tpot

        if others == 0:
            wait, tpot, cycle = 0.0, t_d, prefill + decodes * t_d
            if node_others:  # alone on its rank, but the other ranks' prompts still hold its steps
                wait, tpot, cycle = through(0.0)
        else:
            # The load is where the cycle it gives matches the one it comes from (busy x cycle =
            # the other prompts' time). At a fixed time per token that balance is a quadratic in
            # the load with one root in [0, 1]; the time per token depends on the load only
            # through the prompts' share of the steps, so the root is found by solving the
            # quadratic at the time per token of the last load until the load stays put.
            per_prefill = decodes / prefill

            def balanced(load: float) -> float:  # the quadratic's root at the time per token of `load`
                q = per_prefill * through(load)[1]
                b = 1 + q + others
                return 2 * others / (b + math.sqrt(b * b - 4 * (0.5 + q) * others))

            # A solve at the last load's time per token moves the load toward the root; the root
            # of (solve - load) is approached by secant steps kept inside the bracket the solves
            # have drawn (a plain solve, or a bisection, where a step would leave it).
            lo, hi = 0.0, 1.0  # solve - load is positive at lo, negative at hi
            x0, h0 = 0.0, balanced(0.0)
            x1 = root = h0
            for _ in range(_STEADY_ROUNDS):
                root = balanced(x1)
                h1 = root - x1
                if abs(h1) <= 1e-12:
                    break
                if h1 > 0:
                    lo = x1
                else:
                    hi = x1
                guess = x1 - h1 * (x1 - x0) / (h1 - h0) if h1 != h0 else root
                if not lo < guess < hi:
                    guess = root if lo < root < hi else (lo + hi) / 2
                x0, h0, x1 = x1, h1, guess
            busy = min(root, _BUSIEST)
            wait, tpot, cycle = through(busy)
        burst = self.runtime.arrival_burst * others / 2 * prefill
        ttft = self.runtime.request_overhead_s + wait + burst + prefill
        queue = cycle * (rank_users - admitted) / admitted if rank_users > admitted else 0.0
        total = min(users, admitted * dp) * answer / cycle  # every rank's, at the busiest one's pace
        return Steady(
            admitted=admitted,
            tpot_s=tpot,
            ttft_s=ttft + queue,
            queue_s=queue,
            total_tok_s=total,
            prefill_share=min(1.0, admitted * marginal / cycle),
            bound=step.bound,
            communication_s=step.communication,
            cycle_s=cycle,
        )

    def chunk_tokens(self, others: int = 0) -> int:
        """Prompt tokens one step takes beside `others` decoding sequences: what is left of the
        step's budget (vLLM's max_num_batched_tokens, llama.cpp's micro-batch) after their tokens."""
        budget = self._budget
        return max(budget - others, _LEAST_CHUNK, 1) if budget > _LEAST_CHUNK else budget

    @shared_once
    def _budget(self) -> int:
        return batched_tokens(self.runtime, self.gpu)

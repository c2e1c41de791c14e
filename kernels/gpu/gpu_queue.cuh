// Bounded multi-producer multi-consumer ring of records in global memory, used a warp at a time.
//
// One atomic per warp and operation, not per record:
//   push: the leader reserves space (atomicAdd on `reserved`; undone if the ring would overflow, and
//         then every lane keeps its record: producers never wait for space, so a full ring cannot
//         deadlock) and takes consecutive tickets (atomicAdd on `tail`); each lane writes its slot and
//         publishes it by setting the slot's sequence number to ticket + 1; the leader then adds the
//         count to `available`.
//   pop:  the leader claims up to n published records (atomicSub on `available`, returning what it
//         could not take; a CAS loop collapses under thousands of contending warps) and takes their tickets
//         (atomicAdd on `head`); each lane waits until its slot's sequence number says "published"
//         (records can be published out of ticket order), reads it, and frees the slot for the
//         ticket one lap later; the leader then releases the space.
// A consumer therefore never reads a slot before its producer finished writing it, and every ticket is
// read exactly once: nothing is lost or duplicated. Waits on a sequence number only ever wait for a
// warp that already holds the matching ticket and is between two non-blocking steps.
#pragma once

#include "kernels/gpu/record_rows.h"

namespace pkrt {

constexpr unsigned kFullMask = 0xffffffffu;

__device__ __forceinline__ unsigned lane_id() { return threadIdx.x & 31u; }
__device__ __forceinline__ unsigned lanemask_lt() { return (1u << lane_id()) - 1u; }

__device__ __forceinline__ unsigned long long load_volatile(const unsigned long long* p) {
    return *reinterpret_cast<const volatile unsigned long long*>(p);
}
__device__ __forceinline__ int load_volatile(const int* p) { return *reinterpret_cast<const volatile int*>(p); }
__device__ __forceinline__ unsigned load_volatile(const unsigned* p) {
    return *reinterpret_cast<const volatile unsigned*>(p);
}
__device__ __forceinline__ void store_volatile(unsigned long long* p, unsigned long long v) {
    *reinterpret_cast<volatile unsigned long long*>(p) = v;
}
__device__ __forceinline__ void store_volatile(unsigned* p, unsigned v) {
    *reinterpret_cast<volatile unsigned*>(p) = v;
}

// Record copies bypass L1 (ld.cg / st.cg): L1 is not coherent across SMs, and a slot is rewritten by
// other SMs every lap. Records travel as their 16-byte rows (kernels/gpu/record_rows.h), packed field by
// field rather than through a cast of the struct's address, so the record stays in registers instead
// of being forced into local memory.
template <class Record> __device__ __forceinline__ void store_record(Record* dst, const Record& r) {
    constexpr int n = sizeof(Record) / sizeof(Row16);
    Row16 rows[n];
    pack_rows(r, rows);
    float4* d = reinterpret_cast<float4*>(dst);
#pragma unroll
    for (int i = 0; i < n; ++i) __stcg(d + i, make_float4(rows[i].x, rows[i].y, rows[i].z, rows[i].w));
}

template <class Record> __device__ __forceinline__ void load_record(Record& r, const Record* src) {
    constexpr int n = sizeof(Record) / sizeof(Row16);
    Row16 rows[n];
    const float4* s = reinterpret_cast<const float4*>(src);
#pragma unroll
    for (int i = 0; i < n; ++i) {
        float4 v = __ldcg(s + i);
        rows[i] = Row16{v.x, v.y, v.z, v.w};
    }
    unpack_rows(rows, r);
}

// All 32 lanes must call it together. Lanes with `want` offer `rec`. Returns true for lanes whose
// record is now in the queue or that offered nothing; false means "queue full, keep it".
template <class Record> __device__ bool warp_push(const DeviceQueue<Record>& q, bool want, const Record& rec) {
    unsigned mask = __ballot_sync(kFullMask, want);
    if (mask == 0) return true;
    int n = __popc(mask);
    int leader = __ffs(mask) - 1;
    unsigned long long base = 0;
    int ok = 0;
    if (static_cast<int>(lane_id()) == leader) {
        int before = atomicAdd(&q.counters->reserved, n);
        if (before + n <= static_cast<int>(q.capacity)) {
            ok = 1;
            base = atomicAdd(&q.counters->tail, static_cast<unsigned long long>(n));
            if (before + n > load_volatile(&q.counters->peak)) atomicMax(&q.counters->peak, before + n);
        } else {
            atomicSub(&q.counters->reserved, n);
        }
    }
    ok = __shfl_sync(kFullMask, ok, leader);
    if (!ok) return !want;
    base = __shfl_sync(kFullMask, base, leader);
    if (want) {
        unsigned long long t = base + __popc(mask & lanemask_lt());
        unsigned slot = static_cast<unsigned>(t & (q.capacity - 1));
        // The slot's previous occupant (ticket t - capacity) has been claimed; wait until it is read.
        while (load_volatile(&q.seq[slot]) != t) __nanosleep(32);
        store_record(&q.slots[slot], rec);
        __threadfence();
        store_volatile(&q.seq[slot], t + 1);  // publish
    }
    __syncwarp();
    if (static_cast<int>(lane_id()) == leader) {
        __threadfence();
        atomicAdd(&q.counters->available, n);
    }
    return true;
}

// All 32 lanes call it together; lanes in `need` want a record. Returns how many were popped; lanes
// that got one have *got set and rec filled. Records go to the lowest lanes of `need`.
template <class Record> __device__ int warp_pop(const DeviceQueue<Record>& q, unsigned need, Record& rec, bool* got) {
    *got = false;
    int want = __popc(need);
    if (want == 0) return 0;
    int n = 0;
    unsigned long long base = 0;
    if (lane_id() == 0 && load_volatile(&q.counters->available) > 0) {
        // Take `want`, keep what was really there, give the rest back. The counter may dip below zero
        // meanwhile, which only makes other consumers take less: a claim never exceeds what was
        // published and not yet claimed.
        int before = atomicSub(&q.counters->available, want);
        n = before <= 0 ? 0 : (before < want ? before : want);
        if (n < want) atomicAdd(&q.counters->available, want - n);
        if (n > 0) base = atomicAdd(&q.counters->head, static_cast<unsigned long long>(n));
    }
    n = __shfl_sync(kFullMask, n, 0);
    if (n == 0) return 0;
    base = __shfl_sync(kFullMask, base, 0);
    int rank = __popc(need & lanemask_lt());
    if (((need >> lane_id()) & 1u) && rank < n) {
        unsigned long long t = base + rank;
        unsigned slot = static_cast<unsigned>(t & (q.capacity - 1));
        while (load_volatile(&q.seq[slot]) != t + 1) __nanosleep(32);
        __threadfence();
        load_record(rec, &q.slots[slot]);
        __threadfence();
        store_volatile(&q.seq[slot], t + q.capacity);  // free for the ticket one lap later
        *got = true;
    }
    __syncwarp();
    if (lane_id() == 0) {
        __threadfence();
        atomicSub(&q.counters->reserved, n);
    }
    return n;
}

// Records currently held (reserved or published): what the statistics call occupancy.
template <class Record> __device__ __forceinline__ int queue_occupancy(const DeviceQueue<Record>& q) {
    return load_volatile(&q.counters->reserved);
}

template <class Record> __device__ __forceinline__ int queue_available(const DeviceQueue<Record>& q) {
    return load_volatile(&q.counters->available);
}

}  // namespace pkrt

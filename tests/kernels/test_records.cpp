// Queue records travel as 16-byte rows (kernels/gpu/record_rows.h). Every field must survive the trip: a
// field added to a record without a row to travel in, or two fields packed into the same word, fails
// here.
#include <gtest/gtest.h>

#include <cstring>

#include "kernels/gpu/record_rows.h"

using namespace pkrt;

namespace {

// Distinct bit patterns in every 32-bit word of the record, none of them a float that a copy could
// canonicalise (no NaNs).
template <class Record> Record distinct_record() {
    Record r;
    uint32_t words[sizeof(Record) / 4];
    for (size_t i = 0; i < std::size(words); ++i) words[i] = 0x3f800000u + 0x1001u * static_cast<uint32_t>(i + 1);
    std::memcpy(&r, words, sizeof r);
    return r;
}

}  // namespace

TEST(Records, PathRecordRoundTripsEveryField) {
    PathRecord in = distinct_record<PathRecord>();
    in.pad = 0;  // the one word that carries nothing
    Row16 rows[kPathRows];
    pack_rows(in, rows);
    PathRecord out = distinct_record<PathRecord>();
    std::memset(&out, 0xff, sizeof out);
    unpack_rows(rows, out);
    const PathState &a = in.path, &b = out.path;
    EXPECT_EQ(std::memcmp(&a.origin, &b.origin, sizeof a.origin), 0);
    EXPECT_EQ(std::memcmp(&a.dir, &b.dir, sizeof a.dir), 0);
    EXPECT_EQ(std::memcmp(&a.throughput, &b.throughput, sizeof a.throughput), 0);
    EXPECT_EQ(a.pixel, b.pixel);
    EXPECT_EQ(a.rng.state, b.rng.state);
    EXPECT_EQ(a.depth, b.depth);
    EXPECT_EQ(a.flags, b.flags);
    EXPECT_EQ(std::memcmp(&a.prev_pdf, &b.prev_pdf, sizeof a.prev_pdf), 0);
    EXPECT_EQ(in.sample, out.sample);
    EXPECT_EQ(out.pad, 0u);
    // Byte for byte, nothing else is left: the whole record is its fields.
    EXPECT_EQ(std::memcmp(&in, &out, sizeof in), 0);
}

TEST(Records, ShadowRecordRoundTripsEveryField) {
    ShadowRecord in = distinct_record<ShadowRecord>();
    Row16 rows[kShadowRows];
    pack_rows(in, rows);
    ShadowRecord out;
    std::memset(&out, 0xff, sizeof out);
    unpack_rows(rows, out);
    EXPECT_EQ(std::memcmp(&in.ray.origin, &out.ray.origin, sizeof in.ray.origin), 0);
    EXPECT_EQ(std::memcmp(&in.ray.dir, &out.ray.dir, sizeof in.ray.dir), 0);
    EXPECT_EQ(std::memcmp(&in.ray.tmax, &out.ray.tmax, sizeof in.ray.tmax), 0);
    EXPECT_EQ(std::memcmp(&in.ray.contribution, &out.ray.contribution, sizeof in.ray.contribution), 0);
    EXPECT_EQ(in.ray.pixel, out.ray.pixel);
    EXPECT_EQ(in.depth, out.depth);
    EXPECT_EQ(std::memcmp(&in, &out, sizeof in), 0);
}

TEST(Records, RowsCoverTheRecords) {
    static_assert(sizeof(PathRecord) == kPathRows * sizeof(Row16));
    static_assert(sizeof(ShadowRecord) == kShadowRows * sizeof(Row16));
    // Each packed word comes from a different field word: distinct inputs give distinct row words.
    PathRecord in = distinct_record<PathRecord>();
    in.pad = 0;
    Row16 rows[kPathRows];
    pack_rows(in, rows);
    uint32_t words[4 * kPathRows];
    std::memcpy(words, rows, sizeof rows);
    for (int i = 0; i < 4 * kPathRows; ++i)
        for (int j = i + 1; j < 4 * kPathRows; ++j)
            if (words[i] != 0) {
                EXPECT_NE(words[i], words[j]) << "row words " << i << " and " << j;
            }
}

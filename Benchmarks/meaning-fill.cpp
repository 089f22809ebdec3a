// Gives every item of a big index a real vector of meaning, borrowed: what lets Benchmarks/run time
// hybrid searches at 200,000 items and more without embedding them all (about 100 items/s on 2
// cores: half an hour at 200,000).
//
//   meaning-fill SAMPLE TARGET [SHARD SHARDS]
//
// SAMPLE is the current generation of an index whose items `searchlight embed` gave vectors (a few
// thousand of the same corpus); TARGET the current generation of a copy of the big index, or of
// shard SHARD (from 1) of a topology of SHARDS. Document d of TARGET gets the vector of SAMPLE's
// document (d - 1) mod its count, d numbered across the topology's shards as Xapian numbers them
// (the item d of a shard is the item (d - 1) × SHARDS + SHARD of the topology), so that a topology
// and one index of the same items get the same vectors. The vector is the value Searchlight keeps
// it in (slot 1: a float scale and 384 signed bytes), and TARGET records SAMPLE's model. A search
// by meaning reads and compares every vector whatever its content, so its cost is the real one;
// the similarities, and so how many items pass the 0.3 floor, are real vectors' too. Built by
// Benchmarks/run with g++ -O2 and Debian's libxapian-dev.

#include <xapian.h>

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char **argv) {
    if (argc != 3 && argc != 5) {
        std::cerr << "usage: meaning-fill SAMPLE TARGET [SHARD SHARDS]\n";
        return 64;
    }
    const Xapian::docid shard = argc == 5 ? Xapian::docid(std::stoul(argv[3])) : 1;
    const Xapian::docid shards = argc == 5 ? Xapian::docid(std::stoul(argv[4])) : 1;
    constexpr Xapian::valueno meaning_slot = 1;
    const std::string model_key = "searchlight.meaning.model";
    try {
        Xapian::Database sample(argv[1]);
        std::vector<std::string> vectors;
        for (auto value = sample.valuestream_begin(meaning_slot); value != sample.valuestream_end(meaning_slot); ++value)
            vectors.push_back(*value);
        if (vectors.empty()) {
            std::cerr << "meaning-fill: " << argv[1] << " has no vectors of meaning\n";
            return 65;
        }
        Xapian::WritableDatabase target(argv[2], Xapian::DB_OPEN);
        size_t filled = 0;
        for (auto id = target.postlist_begin(""); id != target.postlist_end(""); ++id) {
            Xapian::Document document = target.get_document(*id);
            const Xapian::docid numbered = (*id - 1) * shards + shard;
            document.add_value(meaning_slot, vectors[(numbered - 1) % vectors.size()]);
            target.replace_document(*id, document);
            if (++filled % 50000 == 0) target.commit();
        }
        target.set_metadata(model_key, sample.get_metadata(model_key));
        target.commit();
        std::cout << "{\"items\": " << filled << ", \"vectors\": " << vectors.size() << "}\n";
    } catch (const Xapian::Error &error) {
        std::cerr << "meaning-fill: " << error.get_description() << "\n";
        return 1;
    }
    return 0;
}

// Xapian alone on a Searchlight index: the floor under counts and sorts by attributes.
//   g++ -O2 -o xapian-attribute-ceiling Benchmarks/xapian-attribute-ceiling.cpp $(xapian-config --cxxflags --libs)
//   ./xapian-attribute-ceiling INDEX/gen-NNNNNN WORD…   (slot 10: category, slot 8: price)
#include <xapian.h>
#include <chrono>
#include <cmath>
#include <algorithm>
#include <cstdio>
#include <vector>
#include <string>
#include <unordered_map>
using namespace std;
static double ms(chrono::steady_clock::time_point a) { return chrono::duration<double, milli>(chrono::steady_clock::now() - a).count(); }
struct Numbers : Xapian::MatchSpy { Xapian::valueno slot; vector<double> v; explicit Numbers(Xapian::valueno s) : slot(s) {}
  void operator()(const Xapian::Document &d, double) override { string x = d.get_value(slot); if (!x.empty()) v.push_back(Xapian::sortable_unserialise(x)); } };
struct Ids : Xapian::MatchSpy { vector<Xapian::docid> v; void operator()(const Xapian::Document &d, double) override { v.push_back(d.get_docid()); } };
template <class F> void stream(Xapian::Database &db, Xapian::valueno slot, const vector<Xapian::docid> &ids, F f) {
  auto v = db.valuestream_begin(slot); auto end = db.valuestream_end(slot);
  for (auto d : ids) { if (v == end) return; v.skip_to(d); if (v != end && v.get_docid() == d) f(*v); } }
// A sort key read from the slot's own value stream rather than through the matcher's document.
struct StreamKey : Xapian::KeyMaker { Xapian::Database db; Xapian::valueno slot; mutable Xapian::ValueIterator it; mutable Xapian::docid last = 0;
  StreamKey(const Xapian::Database &d, Xapian::valueno s) : db(d), slot(s), it(d.valuestream_begin(s)) {}
  string operator()(const Xapian::Document &doc) const override { Xapian::docid did = doc.get_docid(); if (did < last) it = db.valuestream_begin(slot); last = did;
    if (it == db.valuestream_end(slot)) return string(); it.skip_to(did); return it != db.valuestream_end(slot) && it.get_docid() == did ? *it : string(); } };
// A counted attribute of every item, by document id: a code per text (0 for none), a number (NaN for none).
struct Columns { vector<uint32_t> codes; vector<string> texts; vector<double> numbers;
  Columns(Xapian::Database &db, Xapian::valueno text, Xapian::valueno number) : codes(db.get_lastdocid() + 1), numbers(db.get_lastdocid() + 1, NAN) {
    unordered_map<string, uint32_t> known;
    for (auto v = db.valuestream_begin(text); v != db.valuestream_end(text); ++v) { auto r = known.try_emplace(*v, texts.size() + 1); if (r.second) texts.push_back(*v); codes[v.get_docid()] = r.first->second; }
    for (auto v = db.valuestream_begin(number); v != db.valuestream_end(number); ++v) numbers[v.get_docid()] = Xapian::sortable_unserialise(*v); } };
template <class F> void timeit(const char *name, F f, int rounds = 25) {
  vector<double> t; f(); for (int i = 0; i < rounds; ++i) { auto a = chrono::steady_clock::now(); f(); t.push_back(ms(a)); }
  sort(t.begin(), t.end()); printf("%-60s p50 %7.2f  max %7.2f ms\n", name, t[t.size() / 2], t.back()); }
int main(int argc, char **argv) {
  Xapian::Database db(argv[1]);
  Xapian::Stem stem("english");
  for (int w = 2; w < argc; ++w) {
    Xapian::Query q("Z" + stem(argv[w]));
    printf("%s: %u items\n", argv[w], db.get_termfreq("Z" + stem(argv[w])));
    timeit("page by relevance (BM25, 20, checking 1,020)", [&] { Xapian::Enquire e(db); e.set_query(q); e.get_mset(0, 20, 1020); });
    timeit("page by -price (value sort, 20)", [&] { Xapian::Enquire e(db); e.set_query(q); e.set_sort_by_value_then_relevance(8, true); e.get_mset(0, 20, 1020); });
    timeit("page by -price (value sort only, no relevance)", [&] { Xapian::Enquire e(db); e.set_query(q); e.set_weighting_scheme(Xapian::BoolWeight()); e.set_sort_by_value(8, true); e.get_mset(0, 20, 1020); });
    timeit("page by -price (value-stream key maker, then relevance)", [&] { Xapian::Enquire e(db); e.set_query(q); StreamKey k(db, 8); e.set_sort_by_key_then_relevance(&k, true); e.get_mset(0, 20, 1020); });
    timeit("count only (BoolWeight, every match)", [&] { Xapian::Enquire e(db); e.set_query(q); e.set_weighting_scheme(Xapian::BoolWeight()); e.get_mset(0, 0, db.get_doccount()); });
    timeit("count category (ValueCountMatchSpy)", [&] { Xapian::Enquire e(db); e.set_query(q); e.set_weighting_scheme(Xapian::BoolWeight()); Xapian::ValueCountMatchSpy s(10); e.add_matchspy(&s); e.get_mset(0, 0, db.get_doccount()); });
    timeit("count category and price (ValueCountMatchSpy, numbers kept)", [&] { Xapian::Enquire e(db); e.set_query(q); e.set_weighting_scheme(Xapian::BoolWeight()); Xapian::ValueCountMatchSpy s(10); Numbers n(8); e.add_matchspy(&s); e.add_matchspy(&n); e.get_mset(0, 0, db.get_doccount()); });
    timeit("count category and price (ids, then value streams)", [&] { Xapian::Enquire e(db); e.set_query(q); e.set_weighting_scheme(Xapian::BoolWeight()); Ids ids; e.add_matchspy(&ids); e.get_mset(0, 0, db.get_doccount());
      unordered_map<string, size_t> c; stream(db, 10, ids.v, [&](const string &x) { ++c[x]; }); vector<double> n; stream(db, 8, ids.v, [&](const string &x) { n.push_back(Xapian::sortable_unserialise(x)); }); });
    timeit("category and price columns, built (every item's two values)", [&] { Columns columns(db, 10, 8); });
    Columns columns(db, 10, 8);
    timeit("count category and price (ids, then the columns)", [&] { Xapian::Enquire e(db); e.set_query(q); e.set_weighting_scheme(Xapian::BoolWeight()); Ids ids; e.add_matchspy(&ids); e.get_mset(0, 0, db.get_doccount());
      vector<size_t> c(columns.texts.size() + 1); vector<double> n; for (auto d : ids.v) { ++c[columns.codes[d]]; if (!std::isnan(columns.numbers[d])) n.push_back(columns.numbers[d]); } });
  }
}

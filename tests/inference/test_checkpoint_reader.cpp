// The torch.save checkpoint reader: the VISTA-3D parity reference's state_dict (keys, shapes and dtypes against its
// manifest; the positional-encoding buffer's values against MONAI's own PE grid), hand-built archives for wrappers,
// prefixes and strided views, and the refusals: foreign pickle globals and opcodes, truncation, damaged storages.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <random>

#include <nlohmann/json.hpp>

#include "inference/vista3d/architecture.h"
#include "inference/vista3d/checkpoint_reader.h"
#include "inference/vista3d/network.h"
#include "tests/common/test_support.h"
#include "tests/inference/npy.h"

using namespace delineate;
using namespace delineate::inference::vista3d;

namespace {

std::vector<std::uint8_t> readBytes(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(f), {});
}
void writeBytes(const std::filesystem::path& p, const std::vector<std::uint8_t>& b) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

std::uint32_t crc(const std::vector<std::uint8_t>& d) {
  std::uint32_t c = 0xFFFFFFFFu;
  for (std::uint8_t b : d) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
  }
  return ~c;
}

void put(std::vector<std::uint8_t>& o, std::uint64_t v, int n) {
  for (int i = 0; i < n; ++i) o.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

// A stored (uncompressed) zip of the given entries, as torch.save writes them.
std::vector<std::uint8_t> zip(const std::vector<std::pair<std::string, std::vector<std::uint8_t>>>& entries) {
  std::vector<std::uint8_t> out, cd;
  for (const auto& [name, data] : entries) {
    const std::size_t local = out.size();
    put(out, 0x04034b50, 4), put(out, 20, 2), put(out, 0, 2), put(out, 0, 2), put(out, 0, 4);
    put(out, crc(data), 4), put(out, data.size(), 4), put(out, data.size(), 4), put(out, name.size(), 2), put(out, 0, 2);
    out.insert(out.end(), name.begin(), name.end());
    out.insert(out.end(), data.begin(), data.end());
    put(cd, 0x02014b50, 4), put(cd, 20, 2), put(cd, 20, 2), put(cd, 0, 2), put(cd, 0, 2), put(cd, 0, 4);
    put(cd, crc(data), 4), put(cd, data.size(), 4), put(cd, data.size(), 4), put(cd, name.size(), 2);
    put(cd, 0, 2), put(cd, 0, 2), put(cd, 0, 2), put(cd, 0, 2), put(cd, 0, 4), put(cd, local, 4);
    cd.insert(cd.end(), name.begin(), name.end());
  }
  const std::size_t cdOffset = out.size();
  out.insert(out.end(), cd.begin(), cd.end());
  put(out, 0x06054b50, 4), put(out, 0, 2), put(out, 0, 2), put(out, entries.size(), 2), put(out, entries.size(), 2);
  put(out, cd.size(), 4), put(out, cdOffset, 4), put(out, 0, 2);
  return out;
}

// Pickle building blocks (protocol 2 opcodes).
struct Pickle {
  std::vector<std::uint8_t> b;
  Pickle() { op(0x80).op(2); }  // PROTO 2
  Pickle& op(std::uint8_t o) { b.push_back(o); return *this; }
  Pickle& str(const std::string& s) { b.push_back('X'); put(b, s.size(), 4); b.insert(b.end(), s.begin(), s.end()); return *this; }
  Pickle& global(const std::string& m, const std::string& n) {
    b.push_back('c');
    for (const auto& s : {m, n}) { b.insert(b.end(), s.begin(), s.end()); b.push_back('\n'); }
    return *this;
  }
  Pickle& i1(int v) { b.push_back('K'); b.push_back(static_cast<std::uint8_t>(v)); return *this; }
  Pickle& i8(std::int64_t v) {  // LONG1 of 8 bytes
    b.push_back(0x8a);
    b.push_back(8);
    put(b, static_cast<std::uint64_t>(v), 8);
    return *this;
  }
  // A 1-D tensor of `size` over storage `key` of `numel` floats with stride `stride` (LONG1: any 64-bit values).
  Pickle& tensor1d(const std::string& key, std::int64_t numel, std::int64_t size, std::int64_t stride) {
    global("torch._utils", "_rebuild_tensor_v2").op('(');
    op('(').str("storage").global("torch", "FloatStorage").str(key).str("cpu").i8(numel).op('t').op('Q');
    i1(0).i8(size).op(0x85).i8(stride).op(0x85).op(0x89);
    global("collections", "OrderedDict").op(')').op('R');
    return op('t').op('R');
  }
  // _rebuild_tensor_v2(storage key `key` of `numel` floats, offset, size (a, b), stride (s0, s1))
  Pickle& tensor2d(const std::string& key, int numel, int offset, int a, int bsz, int s0, int s1) {
    global("torch._utils", "_rebuild_tensor_v2").op('(');
    op('(').str("storage").global("torch", "FloatStorage").str(key).str("cpu").i1(numel).op('t').op('Q');
    i1(offset).i1(a).i1(bsz).op(0x86).i1(s0).i1(s1).op(0x86).op(0x89);
    global("collections", "OrderedDict").op(')').op('R');
    return op('t').op('R');
  }
};

std::vector<std::uint8_t> floats(std::initializer_list<float> v) {
  std::vector<std::uint8_t> out(v.size() * 4);
  std::memcpy(out.data(), std::data(v), out.size());
  return out;
}

}  // namespace

TEST_CASE("checkpoint: the parity reference's state_dict against its manifest and MONAI's PE grid",
          "[vista3d][checkpoint][data]") {
  auto pt = test::sharedFile("reference/vista3d/tiny_state_dict.pt");
  auto manifestPath = test::sharedFile("reference/vista3d/tiny_state_dict_manifest.json");
  auto pePath = test::sharedFile("reference/vista3d/point_head_pe_grid.npy");
  if (!pt || !manifestPath || !pePath) return;
  auto ck = readTorchCheckpoint(pt->string());
  REQUIRE(ck.ok());
  const auto manifest = nlohmann::ordered_json::parse(test::readTextFile(*manifestPath));
  REQUIRE(ck->tensors.size() == manifest.size());
  CHECK(ck->tensors.size() == 259);
  std::size_t i = 0;
  for (const auto& [name, m] : manifest.items()) {
    const TensorEntry& t = ck->tensors[i++];
    INFO(name);
    CHECK(t.name == name);  // in the state_dict's order
    CHECK(t.shape == m["shape"].get<std::vector<std::int64_t>>());
    CHECK(std::string(dtypeName(t.dtype)) == m["dtype"].get<std::string>());
  }
  // Every storage reads back whole and passes its CRC.
  std::size_t bytes = 0;
  for (const auto& t : ck->tensors) {
    auto data = readTensorBytes(*ck, t);
    REQUIRE(data.ok());
    CHECK(data->size() == static_cast<std::size_t>(t.numel()) * elementSize(t.dtype));
    bytes += data->size();
  }
  CHECK(bytes == 6'080'442 * 4 + 3 * 4 * 4);  // the README's parameter count, plus the 3x4 PE buffer

  // The PE buffer G [3, 4] against MONAI's grid: pe[c, i, j, k] = sin / cos(2 pi (2 u - 1) . G[:, c]) with
  // u = ((i + 0.5) / 32, (j + 0.5) / 32, (k + 0.5) / 32), axis by axis (SPEC.md 2.3).
  const TensorEntry* g = ck->find("point_head.pe_layer.positional_encoding_gaussian_matrix");
  REQUIRE(g);
  auto gBytes = readTensorBytes(*ck, *g);
  REQUIRE(gBytes.ok());
  std::vector<float> G(12);
  std::memcpy(G.data(), gBytes->data(), 48);
  std::vector<std::int64_t> shape;
  const auto pe = test::readNpy(*pePath, shape);
  REQUIRE(shape == std::vector<std::int64_t>{8, 32, 32, 32});
  double worst = 0;
  for (int c = 0; c < 8; ++c)
    for (int a = 0; a < 32; ++a)
      for (int b = 0; b < 32; ++b)
        for (int k = 0; k < 32; ++k) {
          const double u[3] = {2 * (a + 0.5) / 32 - 1, 2 * (b + 0.5) / 32 - 1, 2 * (k + 0.5) / 32 - 1};
          double s = 0;
          for (int d = 0; d < 3; ++d) s += u[d] * G[static_cast<std::size_t>(d * 4 + c % 4)];
          const double expect = c < 4 ? std::sin(2 * M_PI * s) : std::cos(2 * M_PI * s);
          worst = std::max(worst, std::fabs(expect - pe[static_cast<std::size_t>(((c * 32 + a) * 32 + b) * 32 + k)]));
        }
  CHECK(worst < 1e-4);
}

TEST_CASE("checkpoint: wrappers, module prefixes and strided views", "[vista3d][checkpoint]") {
  test::ScratchDir dir("checkpoint");
  // {"model": {"module.w": 2x3 view of storage 0 with stride (1, 2) (a transpose), "module.v": the first row}}
  Pickle p;
  p.op('}').str("model").global("collections", "OrderedDict").op(')').op('R');
  p.str("module.w").tensor2d("0", 6, 0, 2, 3, 1, 2).op('s');
  p.str("module.v").tensor2d("0", 6, 1, 1, 3, 3, 1).op('s');
  p.op('s').op('.');
  writeBytes(dir / "wrapped.pt", zip({{"archive/data.pkl", p.b}, {"archive/data/0", floats({0, 1, 2, 3, 4, 5})}}));
  auto ck = readTorchCheckpoint((dir / "wrapped.pt").string());
  REQUIRE(ck.ok());
  REQUIRE(ck->tensors.size() == 2);
  CHECK(ck->tensors[0].name == "w");
  CHECK(ck->tensors[1].name == "v");
  auto w = readTensorBytes(*ck, ck->tensors[0]);
  REQUIRE(w.ok());
  std::vector<float> wv(6);
  std::memcpy(wv.data(), w->data(), 24);
  CHECK(wv == std::vector<float>{0, 2, 4, 1, 3, 5});  // storage [[0 1] [2 3] [4 5]] transposed
  auto v = readTensorBytes(*ck, ck->tensors[1]);
  REQUIRE(v.ok());
  std::vector<float> vv(3);
  std::memcpy(vv.data(), v->data(), 12);
  CHECK(vv == std::vector<float>{1, 2, 3});
}

// The zip's CRC-32, eight bytes a step: the standard check value, and any split of the bytes into updates (the tail
// loop, unaligned starts) gives the one-pass value.
TEST_CASE("checkpoint: CRC-32 of the zip entries, whole and in pieces", "[vista3d][checkpoint]") {
  const std::string digits = "123456789";
  CHECK(crc32Update(0, digits.data(), digits.size()) == 0xCBF43926u);
  CHECK(crc32Update(0, nullptr, 0) == 0u);
  std::string bytes(1000, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = char((i * 131 + 7) & 0xff);
  const std::uint32_t whole = crc32Update(0, bytes.data(), bytes.size());
  for (const std::size_t cut : {std::size_t(1), std::size_t(3), std::size_t(8), std::size_t(13), std::size_t(999)}) {
    const std::uint32_t first = crc32Update(0, bytes.data(), cut);
    CHECK(crc32Update(first, bytes.data() + cut, bytes.size() - cut) == whole);
  }
  // A byte-a-step reference (the polynomial's definition).
  std::uint32_t c = 0xFFFFFFFFu;
  for (const char ch : bytes) {
    c ^= std::uint8_t(ch);
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
  }
  CHECK(whole == (c ^ 0xFFFFFFFFu));
}

TEST_CASE("checkpoint: foreign globals and opcodes, truncation and damage are refused with reasons",
          "[vista3d][checkpoint]") {
  test::ScratchDir dir("checkpoint-bad");
  auto attempt = [&](const std::string& name, const std::vector<std::uint8_t>& file) {
    writeBytes(dir / name, file);
    return readTorchCheckpoint((dir / name).string());
  };
  {
    Pickle p;  // the classic exploit: os.system("...")
    p.global("os", "system").str("touch /tmp/pwned").op(0x85).op('R').op('.');
    auto r = attempt("evil.pt", zip({{"a/data.pkl", p.b}}));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().subject.find("evil.pt") != std::string::npos);
    CHECK(r.error().detail.find("refused global os.system") != std::string::npos);
  }
  {
    Pickle p;  // builtins.eval through a harmless-looking REDUCE
    p.global("builtins", "eval").op('.');
    auto r = attempt("eval.pt", zip({{"a/data.pkl", p.b}}));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().detail.find("builtins.eval") != std::string::npos);
  }
  {
    Pickle p;  // INST (an opcode a state_dict never needs)
    p.op('i').op('.');
    auto r = attempt("inst.pt", zip({{"a/data.pkl", p.b}}));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().detail.find("refused opcode 0x69") != std::string::npos);
  }
  {
    Pickle p;  // a tensor larger than its storage
    p.op('}').str("w").tensor2d("0", 6, 2, 2, 3, 3, 1).op('s').op('.');
    auto r = attempt("short.pt", zip({{"a/data.pkl", p.b}, {"a/data/0", floats({0, 1, 2, 3, 4, 5})}}));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().detail.find("past the end of its storage") != std::string::npos);
  }
  {
    // An element count that wraps around to the entry's size when multiplied (2^62 + 6 floats "are" 24 bytes), and
    // a tensor of 100 over it: refused, never read past the 24 bytes.
    Pickle p;
    p.op('}').str("w").tensor1d("0", (std::int64_t(1) << 62) + 6, 100, 1).op('s').op('.');
    auto r = attempt("wrapped.pt", zip({{"a/data.pkl", p.b}, {"a/data/0", floats({0, 1, 2, 3, 4, 5})}}));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().detail.find("holds 24 bytes") != std::string::npos);
  }
  {
    // A stride whose reach overflows 64 bits (and so would wrap to a small "last element").
    Pickle p;
    p.op('}').str("w").tensor1d("0", 6, 3, std::int64_t(1) << 62).op('s').op('.');
    auto r = attempt("stride.pt", zip({{"a/data.pkl", p.b}, {"a/data/0", floats({0, 1, 2, 3, 4, 5})}}));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().detail.find("too large to address") != std::string::npos);
  }
  {
    auto r = attempt("notzip.pt", std::vector<std::uint8_t>(100, 7));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().detail.find("not a zip") != std::string::npos);
  }
  auto pt = test::sharedFile("reference/vista3d/tiny_state_dict.pt");
  if (!pt) return;
  const auto whole = readBytes(*pt);
  {
    // Truncated: the directory is gone.
    auto r = attempt("half.pt", std::vector<std::uint8_t>(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(whole.size() / 2)));
    REQUIRE_FALSE(r.ok());
  }
  {
    // One flipped byte inside the first weight's storage: the directory reads, the tensor fails its CRC.
    auto damaged = whole;
    auto ck = readTorchCheckpoint(pt->string());
    REQUIRE(ck.ok());
    damaged[static_cast<std::size_t>(ck->tensors[0].fileOffset) + 5] ^= 0x40;
    writeBytes(dir / "flipped.pt", damaged);
    auto ck2 = readTorchCheckpoint((dir / "flipped.pt").string());
    REQUIRE(ck2.ok());
    auto data = readTensorBytes(*ck2, ck2->tensors[0]);
    REQUIRE_FALSE(data.ok());
    CHECK(data.error().code == core::ErrorCode::Corrupt);
    CHECK(data.error().detail.find("CRC") != std::string::npos);
    CHECK(readTensorBytes(*ck2, ck2->tensors[1]).ok());
  }
}

namespace {

std::vector<std::uint8_t> safetensors(const nlohmann::ordered_json& header, const std::vector<std::uint8_t>& data) {
  const std::string text = header.dump();
  std::vector<std::uint8_t> out;
  put(out, text.size(), 8);
  out.insert(out.end(), text.begin(), text.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

}  // namespace

TEST_CASE("checkpoint: safetensors, converted from the parity reference, reads back the same tensors",
          "[vista3d][checkpoint][data]") {
  auto pt = test::sharedFile("reference/vista3d/tiny_state_dict.pt");
  if (!pt) return;
  auto ck = readCheckpoint(pt->string());  // told apart by its magic: a zip
  REQUIRE(ck.ok());
  nlohmann::ordered_json header;
  header["__metadata__"] = {{"format", "pt"}};
  std::vector<std::uint8_t> data;
  static const std::map<DType, const char*> names = {{DType::Float32, "F32"}};
  for (const auto& t : ck->tensors) {
    auto bytes = readTensorBytes(*ck, t);
    REQUIRE(bytes.ok());
    header["module." + t.name] = {{"dtype", names.at(t.dtype)}, {"shape", t.shape},
                                  {"data_offsets", {data.size(), data.size() + bytes->size()}}};
    data.insert(data.end(), bytes->begin(), bytes->end());
  }
  test::ScratchDir dir("safetensors");
  writeBytes(dir / "model.safetensors", safetensors(header, data));
  auto st = readCheckpoint((dir / "model.safetensors").string());
  REQUIRE(st.ok());
  REQUIRE(st->tensors.size() == ck->tensors.size());
  for (std::size_t i = 0; i < ck->tensors.size(); ++i) {
    INFO(ck->tensors[i].name);
    CHECK(st->tensors[i].name == ck->tensors[i].name);  // "module." dropped, order kept
    CHECK(st->tensors[i].shape == ck->tensors[i].shape);
    CHECK(readTensorBytes(*st, st->tensors[i]).value() == readTensorBytes(*ck, ck->tensors[i]).value());
  }
}

TEST_CASE("checkpoint: damaged safetensors headers are refused with reasons", "[vista3d][checkpoint]") {
  test::ScratchDir dir("safetensors-bad");
  const auto six = floats({0, 1, 2, 3, 4, 5});
  auto attempt = [&](const std::string& name, const std::vector<std::uint8_t>& file) {
    writeBytes(dir / name, file);
    return readCheckpoint((dir / name).string());
  };
  auto header = [](const nlohmann::ordered_json& w) { return nlohmann::ordered_json{{"w", w}}; };
  {
    auto r = attempt("ok.safetensors", safetensors(header({{"dtype", "F32"}, {"shape", {2, 3}}, {"data_offsets", {0, 24}}}), six));
    REQUIRE(r.ok());
    CHECK(r->tensors[0].stride == std::vector<std::int64_t>{3, 1});
  }
  const std::pair<nlohmann::ordered_json, std::string> cases[] = {
      {header({{"dtype", "F32"}, {"shape", {2, 3}}, {"data_offsets", {0, 48}}}), "outside the data section"},
      {header({{"dtype", "F32"}, {"shape", {2, 2}}, {"data_offsets", {0, 24}}}), "not 16"},
      {header({{"dtype", "C64"}, {"shape", {2, 3}}, {"data_offsets", {0, 24}}}), "unsupported dtype"},
      {header({{"dtype", "F32"}, {"shape", {-2, 3}}, {"data_offsets", {0, 24}}}), "natural number"},
      {nlohmann::ordered_json{{"a", {{"dtype", "F32"}, {"shape", {4}}, {"data_offsets", {0, 16}}}},
                              {"b", {{"dtype", "F32"}, {"shape", {4}}, {"data_offsets", {8, 24}}}}},
       "share bytes"},
  };
  int k = 0;
  for (const auto& [h, why] : cases) {
    auto r = attempt("bad" + std::to_string(k++) + ".safetensors", safetensors(h, six));
    INFO(h.dump());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().detail.find(why) != std::string::npos);
  }
  // A header length larger than the file, and a header that is not JSON.
  std::vector<std::uint8_t> huge;
  put(huge, 1u << 30, 8);
  CHECK_FALSE(attempt("huge.safetensors", huge).ok());
  std::vector<std::uint8_t> junk;
  put(junk, 5, 8);
  junk.insert(junk.end(), {'{', 'x', 'y', ':', '}'});
  auto r = attempt("junk.safetensors", junk);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().detail.find("not a JSON object") != std::string::npos);
}

TEST_CASE("checkpoint: random damage to a state_dict pickle never crashes the reader", "[vista3d][checkpoint]") {
  // The wrapped archive of the strided-view case, its pickle mutated byte by byte (CRC recomputed so the pickle VM
  // runs): every outcome must be a value or an error.
  Pickle p;
  p.op('}').str("model").global("collections", "OrderedDict").op(')').op('R');
  p.str("module.w").tensor2d("0", 6, 0, 2, 3, 1, 2).op('s').op('s').op('.');
  test::ScratchDir dir("checkpoint-fuzz");
  std::mt19937 rng(99);
  int refused = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    auto b = p.b;
    const int edits = 1 + trial % 3;
    for (int e = 0; e < edits; ++e) b[rng() % b.size()] = static_cast<std::uint8_t>(rng());
    writeBytes(dir / "m.pt", zip({{"archive/data.pkl", b}, {"archive/data/0", floats({0, 1, 2, 3, 4, 5})}}));
    auto r = readTorchCheckpoint((dir / "m.pt").string());
    if (!r.ok()) {
      ++refused;
      CHECK(!r.error().detail.empty());
    } else {
      for (const auto& t : r->tensors) (void)readTensorBytes(*r, t);
    }
  }
  CHECK(refused > 1000);  // most damage is caught
}

TEST_CASE("architecture: the layout for widths 48 and 8 is the official and the parity reference's state_dict",
          "[vista3d][checkpoint][data]") {
  auto official = test::sharedFile("reference/vista3d/official_state_dict_manifest.json");
  auto tiny = test::sharedFile("reference/vista3d/tiny_state_dict_manifest.json");
  if (!official || !tiny) return;
  const auto o = nlohmann::ordered_json::parse(test::readTextFile(*official));
  const auto t = nlohmann::ordered_json::parse(test::readTextFile(*tiny));
  for (const auto& [width, manifest] : {std::make_pair(48, o["keys"]), std::make_pair(8, t)}) {
    INFO("width " << width);
    const auto layout = vista3dLayout(width);
    REQUIRE(layout.size() == manifest.size());
    std::size_t i = 0;
    std::int64_t values = 0;
    for (const auto& [name, m] : manifest.items()) {
      const auto shape = (width == 48 ? m : m["shape"]).template get<std::vector<std::int64_t>>();
      CHECK(layout[i].name == name);
      CHECK(layout[i].shape == shape);
      std::int64_t n = 1;
      for (auto d : shape) n *= d;
      values += n;
      ++i;
    }
    if (width == 48) CHECK(values == o["numel"].get<std::int64_t>());
  }
}

TEST_CASE("architecture: the strict key check reports missing, unexpected, reshaped and renamed keys",
          "[vista3d][checkpoint][data]") {
  auto pt = test::sharedFile("reference/vista3d/tiny_state_dict.pt");
  if (!pt) return;
  auto ck = readCheckpoint(pt->string());
  REQUIRE(ck.ok());
  REQUIRE(widthOf(*ck) == 8);
  const auto layout = vista3dLayout(8);
  CHECK(checkKeys(*ck, layout).ok());
  CHECK_FALSE(checkKeys(*ck, vista3dLayout(48)).ok());  // the width matters

  // A MONAI 1.3 style file: lin1/lin2 names (accepted, reported), plus damage of each kind.
  Checkpoint old = *ck;
  for (auto& e : old.tensors) {
    const auto at = e.name.find(".mlp.linear");
    if (at != std::string::npos) e.name.replace(at, 11, ".mlp.lin");
  }
  auto renamed = checkKeys(old, layout);
  CHECK(renamed.ok());
  CHECK(renamed.renamed.size() == 8);  // 2 layers x 2 linears x (weight, bias)
  if (torchAvailable()) CHECK(Vista3dModel::load(old).ok());  // and the weights load under their new names
  old.tensors.erase(old.tensors.begin() + 3);                              // conv1 of the first block
  old.tensors[0].shape = {8, 2, 3, 3, 3};                                  // conv_init with two input channels
  old.tensors.push_back(old.tensors[1]);
  old.tensors.back().name = "image_encoder.extra.weight";
  const auto bad = checkKeys(old, layout);
  CHECK_FALSE(bad.ok());
  CHECK(bad.missing == std::vector<std::string>{"image_encoder.encoder.layers.0.blocks.0.conv1.weight"});
  CHECK(bad.unexpected == std::vector<std::string>{"image_encoder.extra.weight"});
  REQUIRE(bad.wrongShape.size() == 1);
  CHECK(bad.wrongShape[0] == "image_encoder.encoder.conv_init.weight: checkpoint [8, 2, 3, 3, 3], expected [8, 1, 3, 3, 3]");
  const std::string text = bad.describe();
  CHECK(text.find("missing keys (1)") != std::string::npos);
  CHECK(text.find("unexpected keys (1)") != std::string::npos);
}

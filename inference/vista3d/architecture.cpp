#include "inference/vista3d/architecture.h"

#include <map>

namespace delineate::inference::vista3d {
namespace {

using Shape = std::vector<std::int64_t>;

std::string shapeText(const Shape& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

class Builder {
 public:
  void add(const std::string& name, Shape shape) { m_out.push_back({name, std::move(shape)}); }
  // A pre-activation residual block of SegResNetDS: norm1, conv1, norm2, conv2 (convolutions without bias).
  void resBlock(const std::string& p, std::int64_t c) {
    add(p + ".norm1.weight", {c});
    add(p + ".norm1.bias", {c});
    add(p + ".conv1.weight", {c, c, 3, 3, 3});
    add(p + ".norm2.weight", {c});
    add(p + ".norm2.bias", {c});
    add(p + ".conv2.weight", {c, c, 3, 3, 3});
  }
  void linear(const std::string& p, std::int64_t out, std::int64_t in) {
    add(p + ".weight", {out, in});
    add(p + ".bias", {out});
  }
  void norm(const std::string& p, std::int64_t c) {
    add(p + ".weight", {c});
    add(p + ".bias", {c});
  }
  void conv3(const std::string& p, std::int64_t out, std::int64_t in) {
    add(p + ".weight", {out, in, 3, 3, 3});
    add(p + ".bias", {out});
  }
  // SAM attention: q, k, v project `dim` to `inner`, out projects back.
  void attention(const std::string& p, std::int64_t dim, std::int64_t inner) {
    linear(p + ".q_proj", inner, dim);
    linear(p + ".k_proj", inner, dim);
    linear(p + ".v_proj", inner, dim);
    linear(p + ".out_proj", dim, inner);
  }
  std::vector<ParameterShape> take() { return std::move(m_out); }

 private:
  std::vector<ParameterShape> m_out;
};

}  // namespace

std::vector<ParameterShape> vista3dLayout(int width) {
  const std::int64_t w = width;
  Builder b;
  // Encoder: 5 levels of (1, 2, 2, 4, 4) residual blocks, doubling channels, a strided conv between levels.
  const int blocks[5] = {1, 2, 2, 4, 4};
  b.add("image_encoder.encoder.conv_init.weight", {w, 1, 3, 3, 3});
  for (int level = 0; level < 5; ++level) {
    const std::int64_t c = w << level;
    const std::string p = "image_encoder.encoder.layers." + std::to_string(level);
    for (int k = 0; k < blocks[level]; ++k) b.resBlock(p + ".blocks." + std::to_string(k), c);
    if (level < 4) b.add(p + ".downsample.weight", {2 * c, c, 3, 3, 3});
  }
  // Two decoders (point branch, automatic branch): transposed conv up, one residual block, a 1x1x1 head at the end.
  for (const char* decoder : {"up_layers", "up_layers_auto"}) {
    for (int level = 0; level < 4; ++level) {
      const std::int64_t in = w << (4 - level), out = w << (3 - level);
      const std::string p = std::string("image_encoder.") + decoder + "." + std::to_string(level);
      b.add(p + ".upsample.deconv.weight", {in, out, 3, 3, 3});
      b.resBlock(p + ".blocks.0", out);
      if (level == 3) {
        b.add(p + ".head.weight", {w, w, 1, 1, 1});
        b.add(p + ".head.bias", {w});
      }
    }
  }
  // Class head.
  b.linear("class_head.mlp.0", w, w);
  b.linear("class_head.mlp.3", w, w);
  b.add("class_head.class_embeddings.weight", {512, w});
  for (int k = 0; k < 2; ++k)
    for (int c = 1; c <= 2; ++c)
      b.add("class_head.image_post_mapping." + std::to_string(k) + ".layer.conv" + std::to_string(c) + ".conv.weight",
            {w, w, 3, 3, 3});
  // Point head.
  b.conv3("point_head.feat_downsample.0", w, w);
  b.conv3("point_head.feat_downsample.3", w, w);
  b.conv3("point_head.mask_downsample", 2, 2);
  for (int layer = 0; layer < 2; ++layer) {
    const std::string p = "point_head.transformer.layers." + std::to_string(layer);
    b.attention(p + ".self_attn", w, w);
    b.norm(p + ".norm1", w);
    b.attention(p + ".cross_attn_token_to_image", w, w / 2);
    b.norm(p + ".norm2", w);
    b.linear(p + ".mlp.linear1", 512, w);
    b.linear(p + ".mlp.linear2", w, 512);
    b.norm(p + ".norm3", w);
    b.norm(p + ".norm4", w);
    b.attention(p + ".cross_attn_image_to_token", w, w / 2);
  }
  b.attention("point_head.transformer.final_attn_token_to_image", w, w / 2);
  b.norm("point_head.transformer.norm_final_attn", w);
  b.add("point_head.pe_layer.positional_encoding_gaussian_matrix", {3, w / 2});
  b.add("point_head.point_embeddings.0.weight", {1, w});
  b.add("point_head.point_embeddings.1.weight", {1, w});
  b.add("point_head.not_a_point_embed.weight", {1, w});
  b.add("point_head.special_class_embed.weight", {1, w});
  b.add("point_head.mask_tokens.weight", {1, w});
  b.conv3("point_head.output_upscaling.0", w, w);
  b.conv3("point_head.output_upscaling.3", w, w);
  for (int k = 0; k < 3; ++k) b.linear("point_head.output_hypernetworks_mlps.layers." + std::to_string(k), w, w);
  b.add("point_head.class_embeddings.weight", {512, w});
  b.add("point_head.zeroshot_embed.weight", {1, w});
  b.add("point_head.supported_embed.weight", {1, w});
  return b.take();
}

std::string canonicalKey(const std::string& name) {
  for (const char* old : {".mlp.lin1.", ".mlp.lin2."}) {
    const auto at = name.find(old);
    if (at != std::string::npos)
      return name.substr(0, at) + (old[8] == '1' ? ".mlp.linear1." : ".mlp.linear2.") +
             name.substr(at + std::string(old).size());
  }
  return name;
}

KeyReport checkKeys(const Checkpoint& checkpoint, const std::vector<ParameterShape>& layout) {
  KeyReport r;
  std::map<std::string, const ParameterShape*> expected;
  for (const auto& p : layout) expected[p.name] = &p;
  std::map<std::string, bool> seen;
  for (const auto& t : checkpoint.tensors) {
    const std::string name = canonicalKey(t.name);
    if (name != t.name) r.renamed.push_back(t.name + " -> " + name);
    const auto it = expected.find(name);
    if (it == expected.end()) {
      r.unexpected.push_back(name);
      continue;
    }
    seen[name] = true;
    if (t.shape != it->second->shape)
      r.wrongShape.push_back(name + ": checkpoint " + shapeText(t.shape) + ", expected " + shapeText(it->second->shape));
  }
  for (const auto& p : layout)
    if (!seen.count(p.name)) r.missing.push_back(p.name);
  return r;
}

std::string KeyReport::describe() const {
  std::string out;
  auto list = [&](const char* title, const std::vector<std::string>& names) {
    if (names.empty()) return;
    out += std::string(title) + " (" + std::to_string(names.size()) + "):\n";
    for (std::size_t i = 0; i < names.size() && i < 10; ++i) out += "  " + names[i] + "\n";
    if (names.size() > 10) out += "  ... and " + std::to_string(names.size() - 10) + " more\n";
  };
  list("missing keys", missing);
  list("unexpected keys", unexpected);
  list("wrong shapes", wrongShape);
  list("renamed keys", renamed);
  return out.empty() ? "all keys and shapes match\n" : out;
}

int widthOf(const Checkpoint& checkpoint) {
  const TensorEntry* conv = checkpoint.find("image_encoder.encoder.conv_init.weight");
  if (!conv || conv->shape.empty() || conv->shape[0] <= 0 || conv->shape[0] > 4096) return 0;
  return static_cast<int>(conv->shape[0]);
}

}  // namespace delineate::inference::vista3d

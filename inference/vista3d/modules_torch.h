#pragma once
// The VISTA-3D module tree in LibTorch (parameter names as the official checkpoint's, SPEC.md 2) and MONAI's
// SegResNetDS built from the same blocks. Included only by torch translation units of inference/ (the engine and
// training); nothing above inference/ sees it.
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "inference/vista3d/network.h"

namespace delineate::inference::vista3d::net {

namespace nn = torch::nn;

inline nn::Conv3d conv3(std::int64_t in, std::int64_t out, std::int64_t stride = 1) {
  return nn::Conv3d(nn::Conv3dOptions(in, out, 3).stride(stride).padding(1).bias(false));
}
inline nn::InstanceNorm3d instanceNorm(std::int64_t c) {
  return nn::InstanceNorm3d(nn::InstanceNorm3dOptions(c).eps(1e-5).affine(true).track_running_stats(false));
}

// Two ways around LibTorch's CPU convolution choices (measured on SegResNetDS training, 2 cores, LibTorch 1.13: a
// 10.8 s step spent 5.0 s in the deepest level's 12x12x10 convolutions and 2.6 s in the transposed convolutions):
// - A batch-1 convolution whose input has at most 20480 values in its first four dimensions (N * C * D * H) goes to
//   the reference kernel (slow_conv3d, about 50x slower per FLOP than oneDNN, backward too). With a zero second
//   sample oneDNN takes it; the zero sample adds nothing to any gradient, and its output is dropped.
// - Transposed convolutions have no oneDNN path in 1.13 (slow_conv_transpose3d). A stride-2, kernel-3, padding-1,
//   output-padding-1 transposed convolution is eight 2x2x2 phase convolutions of the low-resolution input: even
//   outputs take tap 1 of input m, odd outputs taps 2 and 0 of inputs m and m + 1. One convolution with 8x the
//   output channels (kernel gathered from the transposed one, so gradients reach the same weight) and a pixel
//   shuffle give the same values up to summation order.
// GPUs and other devices keep LibTorch's own paths, and so does everything after setCpuConvolutionShortcuts(false)
// (inference/vista3d/network.h). The values differ from LibTorch's kernels' by summation order only; through a deep
// network's normalisations that reaches 1e-4 relative in early layers' gradients (tests/inference/test_training_parity).
inline bool smallBatchOneOnCpu(const torch::Tensor& x) {
  return x.is_cpu() && x.dim() == 5 && x.size(0) == 1 && x.size(1) * x.size(2) * x.size(3) <= 20480 &&
         x.scalar_type() == torch::kFloat32;
}

inline torch::Tensor convolve(nn::Conv3d& conv, const torch::Tensor& x) {
  if (!cpuConvolutionShortcuts()) return conv(x);
  if (!smallBatchOneOnCpu(x)) return conv(x);
  return conv(torch::cat({x, torch::zeros_like(x)})).slice(0, 0, 1);
}

inline torch::Tensor upsample2x(nn::ConvTranspose3d& deconv, const torch::Tensor& x) {
  if (!x.is_cpu() || x.scalar_type() != torch::kFloat32 || x.dim() != 5) return deconv(x);
  if (!cpuConvolutionShortcuts()) return deconv(x);
  // A[phase][tap][k]: which kernel element each of the two taps of an output phase uses.
  static const float kTaps[2][2][3] = {{{0, 1, 0}, {0, 0, 0}}, {{0, 0, 1}, {1, 0, 0}}};
  const auto a = torch::from_blob(const_cast<float*>(&kTaps[0][0][0]), {2, 2, 3}, torch::kFloat32);
  const auto w = deconv->weight.permute({1, 0, 2, 3, 4});  // [out, in, 3, 3, 3]
  const std::int64_t out = w.size(0), in = w.size(1);
  const auto kernel = torch::einsum("xak,ybl,zcm,oiklm->xyzoiabc", {a, a, a, w}).reshape({8 * out, in, 2, 2, 2});
  const auto padded = torch::constant_pad_nd(x, {0, 1, 0, 1, 0, 1});
  torch::Tensor phases;
  if (smallBatchOneOnCpu(padded)) {
    phases = torch::conv3d(torch::cat({padded, torch::zeros_like(padded)}), kernel).slice(0, 0, 1);
  } else {
    phases = torch::conv3d(padded, kernel);
  }
  const std::int64_t b = x.size(0), n0 = x.size(2), n1 = x.size(3), n2 = x.size(4);
  return phases.reshape({b, 2, 2, 2, out, n0, n1, n2})
      .permute({0, 4, 5, 1, 6, 2, 7, 3})
      .reshape({b, out, 2 * n0, 2 * n1, 2 * n2});
}

// Pre-activation residual block: conv2(relu(norm2(conv1(relu(norm1(x)))))) + x.
struct SegResBlockImpl : nn::Module {
  explicit SegResBlockImpl(std::int64_t c)
      : norm1(register_module("norm1", instanceNorm(c))),
        conv1(register_module("conv1", conv3(c, c))),
        norm2(register_module("norm2", instanceNorm(c))),
        conv2(register_module("conv2", conv3(c, c))) {}
  torch::Tensor forward(const torch::Tensor& x) {
    auto y = convolve(conv1, torch::relu(norm1(x)));
    y = convolve(conv2, torch::relu(norm2(y)));
    return y + x;
  }
  nn::InstanceNorm3d norm1;
  nn::Conv3d conv1;
  nn::InstanceNorm3d norm2;
  nn::Conv3d conv2;
};
TORCH_MODULE(SegResBlock);

inline nn::Sequential blocks(std::int64_t c, int count) {
  nn::Sequential s;
  for (int k = 0; k < count; ++k) s->push_back(SegResBlock(c));
  return s;
}

// One encoder level: its blocks, then (all but the deepest level) a strided convolution doubling the channels.
struct EncoderLevelImpl : nn::Module {
  EncoderLevelImpl(std::int64_t c, int count, bool down) : blocks(register_module("blocks", net::blocks(c, count))) {
    if (down) downsample = register_module("downsample", conv3(c, 2 * c, 2));
  }
  nn::Sequential blocks;
  nn::Conv3d downsample{nullptr};
};
TORCH_MODULE(EncoderLevel);

struct UpsampleImpl : nn::Module {
  explicit UpsampleImpl(std::int64_t in)
      : deconv(register_module("deconv", nn::ConvTranspose3d(nn::ConvTranspose3dOptions(in, in / 2, 3)
                                                                  .stride(2)
                                                                  .padding(1)
                                                                  .output_padding(1)
                                                                  .bias(false)))) {}
  nn::ConvTranspose3d deconv;
};
TORCH_MODULE(Upsample);

// One decoder level: transposed convolution up, add the skip, one block; a level with a head (VISTA-3D's last, the
// deep-supervision levels of SegResNetDS) ends in a 1x1x1 convolution to `headChannels`.
struct DecoderLevelImpl : nn::Module {
  DecoderLevelImpl(std::int64_t in, std::int64_t headChannels, bool withHead)
      : upsample(register_module("upsample", Upsample(in))), blocks(register_module("blocks", net::blocks(in / 2, 1))) {
    if (withHead) head = register_module("head", nn::Conv3d(nn::Conv3dOptions(in / 2, headChannels, 1).bias(true)));
  }
  Upsample upsample;
  nn::Sequential blocks;
  nn::Conv3d head{nullptr};
};
TORCH_MODULE(DecoderLevel);

// MONAI's SegResEncoder: conv_init to `w` channels, then one level per entry of `blocksDown`, the channels doubling
// from level to level.
struct SegResEncoderImpl : nn::Module {
  SegResEncoderImpl(std::int64_t w, const std::vector<int>& blocksDown, std::int64_t inChannels = 1)
      : conv_init(register_module("conv_init", conv3(inChannels, w))), layers(register_module("layers", nn::ModuleList())) {
    const auto levels = blocksDown.size();
    for (std::size_t i = 0; i < levels; ++i) layers->push_back(EncoderLevel(w << i, blocksDown[i], i + 1 < levels));
  }
  // The output of every level's blocks, finest first.
  std::vector<torch::Tensor> forward(torch::Tensor x) {
    std::vector<torch::Tensor> skips;
    x = convolve(conv_init, x);
    for (std::size_t i = 0; i < layers->size(); ++i) {
      auto level = layers->ptr<EncoderLevelImpl>(i);
      x = level->blocks->forward(x);
      skips.push_back(x);
      if (level->downsample) x = convolve(level->downsample, x);
    }
    return skips;
  }
  nn::Conv3d conv_init;
  nn::ModuleList layers;
};
TORCH_MODULE(SegResEncoder);

struct ImageEncoderImpl : nn::Module {
  explicit ImageEncoderImpl(std::int64_t w)
      : encoder(register_module("encoder", SegResEncoder(w, std::vector<int>{1, 2, 2, 4, 4}))),
        up_layers(register_module("up_layers", nn::ModuleList())),
        up_layers_auto(register_module("up_layers_auto", nn::ModuleList())) {
    for (int i = 0; i < 4; ++i) {
      up_layers->push_back(DecoderLevel(w << (4 - i), w, i == 3));
      up_layers_auto->push_back(DecoderLevel(w << (4 - i), w, i == 3));
    }
  }
  std::vector<torch::Tensor> encode(const torch::Tensor& x) { return encoder->forward(x); }
  static torch::Tensor decode(nn::ModuleList& levels, const std::vector<torch::Tensor>& skips) {
    torch::Tensor x = skips[4];
    for (std::size_t i = 0; i < levels->size(); ++i) {
      auto level = levels->ptr<DecoderLevelImpl>(i);
      x = upsample2x(level->upsample->deconv, x) + skips[3 - i];
      x = level->blocks->forward(x);
      if (level->head) x = convolve(level->head, x);
    }
    return x;
  }
  SegResEncoder encoder;
  nn::ModuleList up_layers, up_layers_auto;
};
TORCH_MODULE(ImageEncoder);

// MONAI's SegResNetDS (isotropic kernels, deconvolution upsampling, one block per decoder level): the encoder above,
// a decoder level per encoder level but the deepest, heads on the last `dsdepth` levels. Auto3DSeg's default network.
struct SegResNetDSImpl : nn::Module {
  SegResNetDSImpl(std::int64_t w, std::int64_t inChannels, std::int64_t outChannels, const std::vector<int>& blocksDown,
                  int dsdepth)
      : encoder(register_module("encoder", SegResEncoder(w, blocksDown, inChannels))),
        up_layers(register_module("up_layers", nn::ModuleList())) {
    const auto nUp = static_cast<std::int64_t>(blocksDown.size()) - 1;
    for (std::int64_t i = 0; i < nUp; ++i) up_layers->push_back(DecoderLevel(w << (nUp - i), outChannels, nUp - i <= dsdepth));
  }
  // In training every head's output, full resolution first; in evaluation only the full resolution's.
  std::vector<torch::Tensor> forward(const torch::Tensor& x) {
    const auto skips = encoder->forward(x);
    const auto nUp = up_layers->size();
    torch::Tensor y = skips.back();
    std::vector<torch::Tensor> outputs;
    for (std::size_t i = 0; i < nUp; ++i) {
      auto level = up_layers->ptr<DecoderLevelImpl>(i);
      y = upsample2x(level->upsample->deconv, y) + skips[nUp - 1 - i];
      y = level->blocks->forward(y);
      if (level->head && (is_training() || i + 1 == nUp)) outputs.push_back(convolve(level->head, y));
    }
    std::reverse(outputs.begin(), outputs.end());
    return outputs;
  }
  SegResEncoder encoder;
  nn::ModuleList up_layers;
};
TORCH_MODULE(SegResNetDS);

// MONAI's UnetResBlock (in == out, stride 1): lrelu(norm2(conv2(lrelu(norm1(conv1(x))))) + x), norms without
// parameters; each convolution sits in a container whose child is named "conv".
struct ConvHolderImpl : nn::Module {
  explicit ConvHolderImpl(std::int64_t c) : conv(register_module("conv", conv3(c, c))) {}
  nn::Conv3d conv;
};
TORCH_MODULE(ConvHolder);

struct UnetResBlockImpl : nn::Module {
  explicit UnetResBlockImpl(std::int64_t c) : conv1(register_module("conv1", ConvHolder(c))), conv2(register_module("conv2", ConvHolder(c))) {}
  torch::Tensor forward(const torch::Tensor& x) {
    namespace F = torch::nn::functional;
    const auto in = F::InstanceNormFuncOptions().eps(1e-5);
    const auto lrelu = F::LeakyReLUFuncOptions().negative_slope(0.01);
    auto y = F::leaky_relu(F::instance_norm(conv1->conv(x), in), lrelu);
    y = F::instance_norm(conv2->conv(y), in);
    return F::leaky_relu(y + x, lrelu);
  }
  ConvHolder conv1, conv2;
};
TORCH_MODULE(UnetResBlock);

struct BlockHolderImpl : nn::Module {
  explicit BlockHolderImpl(std::int64_t c) : layer(register_module("layer", UnetResBlock(c))) {}
  UnetResBlock layer;
};
TORCH_MODULE(BlockHolder);

// Linear, InstanceNorm1d(1), GELU, Linear: the linears at Sequential indices 0 and 3.
struct ClassMlpImpl : nn::Module {
  explicit ClassMlpImpl(std::int64_t w) : first(register_module("0", nn::Linear(w, w))), second(register_module("3", nn::Linear(w, w))) {}
  torch::Tensor forward(const torch::Tensor& e) {  // [B, 1, w]
    auto y = first(e);
    // InstanceNorm1d over the w values of each class: zero mean, unit (biased) variance.
    const auto mean = y.mean(-1, true);
    const auto var = (y - mean).pow(2).mean(-1, true);
    y = (y - mean) / torch::sqrt(var + 1e-5);
    return second(torch::gelu(y));
  }
  nn::Linear first, second;
};
TORCH_MODULE(ClassMlp);

struct ClassHeadImpl : nn::Module {
  explicit ClassHeadImpl(std::int64_t w)
      : mlp(register_module("mlp", ClassMlp(w))),
        class_embeddings(register_module("class_embeddings", nn::Embedding(512, w))),
        image_post_mapping(register_module("image_post_mapping", nn::ModuleList())) {
    for (int k = 0; k < 2; ++k) image_post_mapping->push_back(BlockHolder(w));
  }
  // out_auto [N, w, H, W, D] (N windows), classes [B] -> logits [N, B, H, W, D]
  torch::Tensor forward(torch::Tensor src, const torch::Tensor& classes) {
    for (std::size_t k = 0; k < image_post_mapping->size(); ++k)
      src = image_post_mapping->ptr<BlockHolderImpl>(k)->layer->forward(src);
    const auto e = mlp->forward(class_embeddings(classes.unsqueeze(1))).squeeze(1);  // [B, w]
    const auto sizes = src.sizes();
    return torch::matmul(e, src.reshape({sizes[0], sizes[1], -1})).reshape({sizes[0], e.size(0), sizes[2], sizes[3], sizes[4]});
  }
  ClassMlp mlp;
  nn::Embedding class_embeddings;
  nn::ModuleList image_post_mapping;
};
TORCH_MODULE(ClassHead);

// ---- the point head (PointMappingSAM, SPEC.md 2.3) ----

// Conv3d + optional bias at Sequential index names: holds the parameterised layers of a Sequential whose
// parameter-free layers (IN, GELU) run functionally.
inline nn::Conv3d conv3b(std::int64_t in, std::int64_t out, std::int64_t stride) {
  return nn::Conv3d(nn::Conv3dOptions(in, out, 3).stride(stride).padding(1).bias(true));
}
inline torch::Tensor instanceNormPlain(const torch::Tensor& x) {
  return torch::nn::functional::instance_norm(x, torch::nn::functional::InstanceNormFuncOptions().eps(1e-5));
}

struct FeatDownsampleImpl : nn::Module {  // Conv(s2), IN, GELU, Conv, IN
  explicit FeatDownsampleImpl(std::int64_t w) : c0(register_module("0", conv3b(w, w, 2))), c3(register_module("3", conv3b(w, w, 1))) {}
  torch::Tensor forward(const torch::Tensor& x) {
    return instanceNormPlain(c3(torch::gelu(instanceNormPlain(c0(x)))));
  }
  nn::Conv3d c0, c3;
};
TORCH_MODULE(FeatDownsample);

struct OutputUpscalingImpl : nn::Module {  // ConvT(s2), IN, GELU, Conv
  explicit OutputUpscalingImpl(std::int64_t w)
      : c0(register_module("0", nn::ConvTranspose3d(nn::ConvTranspose3dOptions(w, w, 3).stride(2).padding(1).output_padding(1).bias(true)))),
        c3(register_module("3", conv3b(w, w, 1))) {}
  torch::Tensor forward(const torch::Tensor& x) { return c3(torch::gelu(instanceNormPlain(c0(x)))); }
  nn::ConvTranspose3d c0;
  nn::Conv3d c3;
};
TORCH_MODULE(OutputUpscaling);

// SAM attention: project to dim / down, 4 heads, softmax(q k^T / sqrt(c)) v, project back.
struct AttentionImpl : nn::Module {
  AttentionImpl(std::int64_t dim, std::int64_t down)
      : inner(dim / down),
        q_proj(register_module("q_proj", nn::Linear(dim, dim / down))),
        k_proj(register_module("k_proj", nn::Linear(dim, dim / down))),
        v_proj(register_module("v_proj", nn::Linear(dim, dim / down))),
        out_proj(register_module("out_proj", nn::Linear(dim / down, dim))) {}
  torch::Tensor forward(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v) {
    constexpr std::int64_t heads = 4;
    auto split = [&](const torch::Tensor& x) {  // [B, N, inner] -> [B, heads, N, c]
      return x.reshape({x.size(0), x.size(1), heads, inner / heads}).transpose(1, 2);
    };
    const auto qh = split(q_proj(q)), kh = split(k_proj(k)), vh = split(v_proj(v));
    const double scale = 1.0 / std::sqrt(static_cast<double>(inner / heads));
    const auto attn = torch::softmax(torch::matmul(qh, kh.transpose(2, 3)) * scale, -1);
    const auto out = torch::matmul(attn, vh).transpose(1, 2).reshape({q.size(0), q.size(1), inner});
    return out_proj(out);
  }
  std::int64_t inner;
  nn::Linear q_proj, k_proj, v_proj, out_proj;
};
TORCH_MODULE(Attention);

struct TokenMlpImpl : nn::Module {
  explicit TokenMlpImpl(std::int64_t w) : linear1(register_module("linear1", nn::Linear(w, 512))), linear2(register_module("linear2", nn::Linear(512, w))) {}
  torch::Tensor forward(const torch::Tensor& x) { return linear2(torch::relu(linear1(x))); }
  nn::Linear linear1, linear2;
};
TORCH_MODULE(TokenMlp);

inline nn::LayerNorm layerNorm(std::int64_t w) { return nn::LayerNorm(nn::LayerNormOptions({w}).eps(1e-5)); }

struct TwoWayBlockImpl : nn::Module {
  TwoWayBlockImpl(std::int64_t w, bool skipFirstPe)
      : skipPe(skipFirstPe),
        self_attn(register_module("self_attn", Attention(w, 1))),
        norm1(register_module("norm1", layerNorm(w))),
        cross_attn_token_to_image(register_module("cross_attn_token_to_image", Attention(w, 2))),
        norm2(register_module("norm2", layerNorm(w))),
        mlp(register_module("mlp", TokenMlp(w))),
        norm3(register_module("norm3", layerNorm(w))),
        norm4(register_module("norm4", layerNorm(w))),
        cross_attn_image_to_token(register_module("cross_attn_image_to_token", Attention(w, 2))) {}
  void forward(torch::Tensor& queries, torch::Tensor& keys, const torch::Tensor& qpe, const torch::Tensor& kpe) {
    if (skipPe) {
      queries = self_attn(queries, queries, queries);
    } else {
      const auto q = queries + qpe;
      queries = queries + self_attn(q, q, queries);
    }
    queries = norm1(queries);
    queries = norm2(queries + cross_attn_token_to_image(queries + qpe, keys + kpe, keys));
    queries = norm3(queries + mlp(queries));
    keys = norm4(keys + cross_attn_image_to_token(keys + kpe, queries + qpe, queries));
  }
  bool skipPe;
  Attention self_attn{nullptr};
  nn::LayerNorm norm1{nullptr};
  Attention cross_attn_token_to_image{nullptr};
  nn::LayerNorm norm2{nullptr};
  TokenMlp mlp{nullptr};
  nn::LayerNorm norm3{nullptr}, norm4{nullptr};
  Attention cross_attn_image_to_token{nullptr};
};
TORCH_MODULE(TwoWayBlock);

struct TwoWayTransformerImpl : nn::Module {
  explicit TwoWayTransformerImpl(std::int64_t w)
      : layers(register_module("layers", nn::ModuleList())),
        final_attn_token_to_image(register_module("final_attn_token_to_image", Attention(w, 2))),
        norm_final_attn(register_module("norm_final_attn", layerNorm(w))) {
    for (int i = 0; i < 2; ++i) layers->push_back(TwoWayBlock(w, i == 0));
  }
  nn::ModuleList layers;
  Attention final_attn_token_to_image;
  nn::LayerNorm norm_final_attn;
};
TORCH_MODULE(TwoWayTransformer);

struct PeLayerImpl : nn::Module {
  explicit PeLayerImpl(std::int64_t w) { gaussian = register_buffer("positional_encoding_gaussian_matrix", torch::zeros({3, w / 2})); }
  // p [..., 3] in [0, 1] -> [..., w]
  torch::Tensor encode(const torch::Tensor& p) {
    const auto c = torch::matmul(2 * p - 1, gaussian) * (2 * M_PI);
    return torch::cat({torch::sin(c), torch::cos(c)}, -1);
  }
  torch::Tensor gaussian;
};
TORCH_MODULE(PeLayer);

inline nn::Embedding embedding1(std::int64_t w) { return nn::Embedding(1, w); }

struct PointHeadImpl : nn::Module {
  explicit PointHeadImpl(std::int64_t w)
      : feat_downsample(register_module("feat_downsample", FeatDownsample(w))),
        mask_downsample(register_module("mask_downsample", nn::Conv3d(nn::Conv3dOptions(2, 2, 3).padding(1).bias(true)))),
        transformer(register_module("transformer", TwoWayTransformer(w))),
        pe_layer(register_module("pe_layer", PeLayer(w))),
        point_embeddings(register_module("point_embeddings", nn::ModuleList())),
        not_a_point_embed(register_module("not_a_point_embed", embedding1(w))),
        special_class_embed(register_module("special_class_embed", embedding1(w))),
        mask_tokens(register_module("mask_tokens", embedding1(w))),
        output_upscaling(register_module("output_upscaling", OutputUpscaling(w))),
        output_hypernetworks_mlps(register_module("output_hypernetworks_mlps", std::make_shared<nn::Module>())),
        class_embeddings(register_module("class_embeddings", nn::Embedding(512, w))),
        zeroshot_embed(register_module("zeroshot_embed", embedding1(w))),
        supported_embed(register_module("supported_embed", embedding1(w))) {
    point_embeddings->push_back(embedding1(w));
    point_embeddings->push_back(embedding1(w));
    hyper = output_hypernetworks_mlps->register_module("layers", nn::ModuleList());
    for (int k = 0; k < 3; ++k) hyper->push_back(nn::Linear(w, w));
  }

  // One object: out_point [1, w, H, W, D], coords [N, 3] voxel indices, labels [N]; -> [H, W, D] logits.
  torch::Tensor forward(const torch::Tensor& outPoint, const torch::Tensor& coords, const std::vector<int>& labels,
                        std::int64_t promptClass) {
    std::vector<std::int64_t> l(labels.begin(), labels.end());
    const auto labelTensor = torch::tensor(l, torch::kInt64).to(coords.device()).unsqueeze(0);
    return forwardBatch(outPoint, coords.unsqueeze(0), labelTensor, {promptClass})[0];
  }

  // B objects on one window (MONAI's PointMappingSAM.forward): out_point [1, w, H, W, D], coords [B, N, 3] voxel
  // indices, labels [B, N] (int64: -1 pad, 0 / 1 negative / positive, 2 / 3 the same for a special class), one
  // prompt class per object (above 132 the zero-shot token) -> [B, H, W, D] logits.
  torch::Tensor forwardBatch(const torch::Tensor& outPoint, const torch::Tensor& coords, const torch::Tensor& labels,
                             const std::vector<std::int64_t>& promptClasses) {
    const std::int64_t w = outPoint.size(1), B = coords.size(0);
    const auto H = outPoint.size(2), W = outPoint.size(3), D = outPoint.size(4);
    const auto low = feat_downsample(outPoint);  // [1, w, h, w, d]
    const auto h = low.size(2), wd = low.size(3), d = low.size(4);
    // Point tokens: the position's encoding plus the embedding of its label; a pad is only its own embedding (the
    // arithmetic masks keep every value exact: x * 1 + 0).
    const auto dims = torch::tensor({static_cast<float>(H), static_cast<float>(W), static_cast<float>(D)}).to(coords.device());
    const auto pe = pe_layer->encode((coords + 0.5) / dims);  // [B, N, w]
    const auto mask = [&](const torch::Tensor& m) { return m.unsqueeze(-1).to(torch::kFloat32); };
    const auto neg = mask((labels == 0) | (labels == 2)), pos = mask((labels == 1) | (labels == 3));
    const auto special = mask(labels >= 2), pad = mask(labels == -1);
    const auto added = neg * point_embeddings->ptr<nn::EmbeddingImpl>(0)->weight +
                       pos * point_embeddings->ptr<nn::EmbeddingImpl>(1)->weight + special * special_class_embed->weight;
    const auto points = (pe + added) * (1 - pad) + pad * not_a_point_embed->weight;  // [B, N, w]
    std::vector<torch::Tensor> classTokens;
    for (const auto c : promptClasses) classTokens.push_back(c > 132 ? zeroshot_embed->weight : supported_embed->weight);
    auto queries = torch::cat({mask_tokens->weight.unsqueeze(0).expand({B, 1, w}), points, torch::stack(classTokens)},
                              1);  // [B, N + 2, w]
    const auto qpe = queries;
    // Image PE on the low-resolution grid, in the order of the flattened keys.
    const auto gi = (torch::arange(h, coords.options()) + 0.5) / static_cast<double>(h);
    const auto gj = (torch::arange(wd, coords.options()) + 0.5) / static_cast<double>(wd);
    const auto gk = (torch::arange(d, coords.options()) + 0.5) / static_cast<double>(d);
    const auto grid = torch::stack(torch::meshgrid({gi, gj, gk}, "ij"), -1).reshape({-1, 3});
    const auto kpe = pe_layer->encode(grid).unsqueeze(0);                        // [1, hwd, w]
    auto keys = low.flatten(2).permute({0, 2, 1}).expand({B, h * wd * d, w});  // [B, hwd, w]
    for (std::size_t i = 0; i < transformer->layers->size(); ++i)
      transformer->layers->ptr<TwoWayBlockImpl>(i)->forward(queries, keys, qpe, kpe);
    queries = transformer->norm_final_attn(queries + transformer->final_attn_token_to_image(queries + qpe, keys + kpe, keys));
    // Mask: the hypernetwork of the mask token against the upscaled image embedding.
    auto hyperIn = queries.slice(1, 0, 1);  // [B, 1, w]
    for (std::size_t k = 0; k < hyper->size(); ++k) {
      hyperIn = hyper->ptr<nn::LinearImpl>(k)->forward(hyperIn);
      if (k < 2) hyperIn = torch::relu(hyperIn);
    }
    const auto up = output_upscaling(keys.transpose(1, 2).reshape({B, w, h, wd, d}));
    return torch::matmul(hyperIn, up.reshape({B, w, -1})).reshape({B, H, W, D});
  }

  FeatDownsample feat_downsample;
  nn::Conv3d mask_downsample;
  TwoWayTransformer transformer;
  PeLayer pe_layer;
  nn::ModuleList point_embeddings;
  nn::Embedding not_a_point_embed, special_class_embed, mask_tokens;
  OutputUpscaling output_upscaling;
  std::shared_ptr<nn::Module> output_hypernetworks_mlps;
  nn::ModuleList hyper{nullptr};
  nn::Embedding class_embeddings, zeroshot_embed, supported_embed;
};
TORCH_MODULE(PointHead);

}  // namespace delineate::inference::vista3d::net

// The one translation unit of the encoder that includes torch (compiled only where LibTorch is found).
#include <torch/torch.h>

#include <cstring>
#include <string>

#include "inference/vista3d/architecture.h"
#include "inference/vista3d/image_encoder.h"

namespace delineate::inference::vista3d {
namespace {

namespace nn = torch::nn;

nn::Conv3d conv3(std::int64_t in, std::int64_t out, std::int64_t stride = 1) {
  return nn::Conv3d(nn::Conv3dOptions(in, out, 3).stride(stride).padding(1).bias(false));
}
nn::InstanceNorm3d instanceNorm(std::int64_t c) {
  return nn::InstanceNorm3d(nn::InstanceNorm3dOptions(c).eps(1e-5).affine(true).track_running_stats(false));
}

// Pre-activation residual block: conv2(relu(norm2(conv1(relu(norm1(x)))))) + x.
struct SegResBlockImpl : nn::Module {
  explicit SegResBlockImpl(std::int64_t c)
      : norm1(register_module("norm1", instanceNorm(c))),
        conv1(register_module("conv1", conv3(c, c))),
        norm2(register_module("norm2", instanceNorm(c))),
        conv2(register_module("conv2", conv3(c, c))) {}
  torch::Tensor forward(const torch::Tensor& x) {
    auto y = conv1(torch::relu(norm1(x)));
    y = conv2(torch::relu(norm2(y)));
    return y + x;
  }
  nn::InstanceNorm3d norm1;
  nn::Conv3d conv1;
  nn::InstanceNorm3d norm2;
  nn::Conv3d conv2;
};
TORCH_MODULE(SegResBlock);

nn::Sequential blocks(std::int64_t c, int count) {
  nn::Sequential s;
  for (int k = 0; k < count; ++k) s->push_back(SegResBlock(c));
  return s;
}

// One encoder level: its blocks, then (levels 0-3) a strided convolution doubling the channels.
struct EncoderLevelImpl : nn::Module {
  EncoderLevelImpl(std::int64_t c, int count, bool down) : blocks(register_module("blocks", vista3d::blocks(c, count))) {
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

// One decoder level: transposed convolution up, add the skip, one block; the last level has a 1x1x1 head.
struct DecoderLevelImpl : nn::Module {
  DecoderLevelImpl(std::int64_t in, std::int64_t width, bool last)
      : upsample(register_module("upsample", Upsample(in))), blocks(register_module("blocks", vista3d::blocks(in / 2, 1))) {
    if (last) head = register_module("head", nn::Conv3d(nn::Conv3dOptions(in / 2, width, 1).bias(true)));
  }
  Upsample upsample;
  nn::Sequential blocks;
  nn::Conv3d head{nullptr};
};
TORCH_MODULE(DecoderLevel);

struct SegResEncoderImpl : nn::Module {
  explicit SegResEncoderImpl(std::int64_t w)
      : conv_init(register_module("conv_init", conv3(1, w))), layers(register_module("layers", nn::ModuleList())) {
    const int counts[5] = {1, 2, 2, 4, 4};
    for (int i = 0; i < 5; ++i) layers->push_back(EncoderLevel(w << i, counts[i], i < 4));
  }
  nn::Conv3d conv_init;
  nn::ModuleList layers;
};
TORCH_MODULE(SegResEncoder);

struct ImageEncoderImpl : nn::Module {
  explicit ImageEncoderImpl(std::int64_t w)
      : encoder(register_module("encoder", SegResEncoder(w))),
        up_layers(register_module("up_layers", nn::ModuleList())),
        up_layers_auto(register_module("up_layers_auto", nn::ModuleList())) {
    for (int i = 0; i < 4; ++i) {
      up_layers->push_back(DecoderLevel(w << (4 - i), w, i == 3));
      up_layers_auto->push_back(DecoderLevel(w << (4 - i), w, i == 3));
    }
  }
  std::vector<torch::Tensor> encode(torch::Tensor x) {
    std::vector<torch::Tensor> skips;
    x = encoder->conv_init(x);
    for (std::size_t i = 0; i < encoder->layers->size(); ++i) {
      auto level = encoder->layers->ptr<EncoderLevelImpl>(i);
      x = level->blocks->forward(x);
      skips.push_back(x);
      if (level->downsample) x = level->downsample(x);
    }
    return skips;
  }
  static torch::Tensor decode(nn::ModuleList& levels, const std::vector<torch::Tensor>& skips) {
    torch::Tensor x = skips[4];
    for (std::size_t i = 0; i < levels->size(); ++i) {
      auto level = levels->ptr<DecoderLevelImpl>(i);
      x = level->upsample->deconv(x) + skips[3 - i];
      x = level->blocks->forward(x);
      if (level->head) x = level->head(x);
    }
    return x;
  }
  SegResEncoder encoder;
  nn::ModuleList up_layers, up_layers_auto;
};
TORCH_MODULE(ImageEncoder);

torch::ScalarType scalarType(DType t) {
  switch (t) {
    case DType::Float32: return torch::kFloat32;
    case DType::Float64: return torch::kFloat64;
    case DType::Float16: return torch::kFloat16;
    case DType::BFloat16: return torch::kBFloat16;
    case DType::Int64: return torch::kInt64;
    case DType::Int32: return torch::kInt32;
    case DType::Int16: return torch::kInt16;
    case DType::Int8: return torch::kInt8;
    case DType::UInt8: return torch::kUInt8;
    case DType::Bool: return torch::kBool;
  }
  return torch::kFloat32;
}

// Copies every parameter and buffer of `module` from the checkpoint entry `prefix` + its name.
core::Status loadWeights(nn::Module& module, const Checkpoint& checkpoint, const std::string& prefix) {
  torch::NoGradGuard noGrad;
  auto load = [&](const std::string& name, torch::Tensor& target) -> core::Status {
    const TensorEntry* e = checkpoint.find(prefix + name);
    if (!e) return core::makeError(core::ErrorCode::ParseError, checkpoint.path, "missing key " + prefix + name);
    if (e->shape != target.sizes().vec())
      return core::makeError(core::ErrorCode::ParseError, checkpoint.path, "wrong shape for " + prefix + name);
    auto bytes = readTensorBytes(checkpoint, *e);
    if (!bytes) return bytes.error();
    auto source = torch::from_blob(bytes->data(), e->shape, scalarType(e->dtype));
    target.copy_(source.to(target.scalar_type()));
    return core::Status::success();
  };
  for (auto& p : module.named_parameters(true))
    if (core::Status s = load(p.key(), p.value()); !s) return s;
  for (auto& b : module.named_buffers(true))
    if (core::Status s = load(b.key(), b.value()); !s) return s;
  return core::Status::success();
}

}  // namespace

bool torchAvailable() { return true; }

core::Result<EncoderOutputs> runImageEncoder(const Checkpoint& checkpoint, const std::vector<float>& volume,
                                             const std::int64_t size[3]) {
  const int width = widthOf(checkpoint);
  if (width <= 0 || width % 2) return core::makeError(core::ErrorCode::ParseError, checkpoint.path, "no VISTA-3D encoder in it");
  const KeyReport report = checkKeys(checkpoint, vista3dLayout(width));
  if (!report.ok()) return core::makeError(core::ErrorCode::ParseError, checkpoint.path, report.describe());
  for (int a = 0; a < 3; ++a)
    if (size[a] <= 0 || size[a] % 16)
      return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "encoder input sizes must be multiples of 16");
  if (volume.size() != static_cast<std::size_t>(size[0] * size[1] * size[2]))
    return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", "the volume does not match its size");
  try {
    torch::NoGradGuard noGrad;
    ImageEncoder model(width);
    model->eval();
    if (core::Status s = loadWeights(*model, checkpoint, "image_encoder."); !s) return s.error();
    auto input = torch::from_blob(const_cast<float*>(volume.data()), {1, 1, size[0], size[1], size[2]}, torch::kFloat32);
    const auto skips = model->encode(input);
    const torch::Tensor point = ImageEncoderImpl::decode(model->up_layers, skips).contiguous();
    const torch::Tensor autoOut = ImageEncoderImpl::decode(model->up_layers_auto, skips).contiguous();
    EncoderOutputs out;
    out.channels = point.size(1);
    for (int a = 0; a < 3; ++a) out.size[a] = size[a];
    out.pointBranch.assign(point.data_ptr<float>(), point.data_ptr<float>() + point.numel());
    out.autoBranch.assign(autoOut.data_ptr<float>(), autoOut.data_ptr<float>() + autoOut.numel());
    return out;
  } catch (const std::bad_alloc&) {
    return core::makeError(core::ErrorCode::OutOfMemory, "vista3d", "out of memory running the encoder");
  } catch (const c10::Error& e) {
    return core::makeError(core::ErrorCode::InvalidArgument, "vista3d", std::string("LibTorch: ") + e.what_without_backtrace());
  }
}

}  // namespace delineate::inference::vista3d

// ptxgen's link step for the OpenCL image built-ins (src/images.cl, src/images.rs).
//
// Before libclc is linked, a program that calls read_image*/write_image*/get_image_* gets the
// definitions it calls from images.cl's bitcode (compiled once per process by the Rust side),
// "only needed", made internal so that they inline and vanish. images.cl leaves two helpers to
// this step, as OpenCL C cannot look inside an image or a sampler:
//   __cudacl_desc(image)    -> the image value itself: a __global pointer to its descriptor;
//   __cudacl_sampler(s)     -> the sampler's bits (sampler_t is a pointer-typed value holding them).
// And clang's __translate_sampler_initializer(bits), through which every in-kernel or
// program-scope `const sampler_t` arrives, gives the same representation back: the bits as a
// pointer value. So a sampler argument (the runtime writes the bits into its 8-byte slot) and a
// constant sampler look the same to images.cl, and a constant one folds away after inlining.
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm-c/Types.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <optional>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bridge.h"

using namespace llvm;

namespace {

// A call of one of OpenCL's image built-ins (mangled: _Z<len>read_imagef..., _Z<len>get_image_...).
bool isImageBuiltin(StringRef n) {
  if (!n.starts_with("_Z")) return false;
  n = n.drop_front(2).ltrim("0123456789");
  return n.starts_with("read_image") || n.starts_with("write_image") || n.starts_with("get_image_");
}

// __translate_sampler_initializer(i32 bits) -> the bits as a pointer value.
void defineSamplerInitializer(Module &M) {
  Function *F = M.getFunction("__translate_sampler_initializer");
  if (!F || !F->isDeclaration() || F->arg_size() != 1 || !F->getReturnType()->isPointerTy() ||
      !F->getArg(0)->getType()->isIntegerTy())
    return;
  makeInternalInline(F);
  IRBuilder<> B(BasicBlock::Create(M.getContext(), "entry", F));
  Value *bits = B.CreateZExt(F->getArg(0), B.getInt64Ty());
  B.CreateRet(B.CreateIntToPtr(bits, F->getReturnType()));
}

// The two helpers images.cl declares (see the top of this file).
bool defineHelpers(Module &L, std::string &err) {
  for (Function &F : L) {
    if (!F.isDeclaration()) continue;
    StringRef n = F.getName();
    bool desc = n.starts_with("_Z13__cudacl_desc");
    bool sampler = n == "__cudacl_sampler";
    if (!desc && !sampler) continue;
    if (F.arg_size() != 1 || !F.getArg(0)->getType()->isPointerTy()) {
      err = "images: unexpected signature of " + n.str();
      return false;
    }
    makeInternalInline(&F);
    IRBuilder<> B(BasicBlock::Create(L.getContext(), "entry", &F));
    Value *a = F.getArg(0);
    if (desc)
      B.CreateRet(a->getType() == F.getReturnType() ? a : B.CreateAddrSpaceCast(a, F.getReturnType()));
    else
      B.CreateRet(B.CreateTrunc(B.CreatePtrToInt(a, B.getInt64Ty()), F.getReturnType()));
  }
  return true;
}

// OpenCL C makes every function and call, inline asm included, `convergent` (it might hold a
// barrier); the image built-ins hold none (suld/sust and arithmetic), and convergent calls keep
// LLVM from unswitching a loop on a uniform test (a read's format test, images.cl's fast paths).
void dropConvergent(Module &L) {
  for (Function &F : L) {
    F.removeFnAttr(Attribute::Convergent);
    for (BasicBlock &BB : F)
      for (Instruction &I : BB)
        if (auto *CB = dyn_cast<CallBase>(&I)) CB->removeFnAttr(Attribute::Convergent);
  }
}

// Marks every function argument that holds an image as what it is: the address of a 64-byte
// descriptor (ptxgen/README.md, "Images"), 64-byte aligned at least, that the kernel only reads
// and reaches through no other pointer (the host writes it before the launch): dereferenceable,
// align 64, readonly, noalias. So LLVM may load descriptor fields speculatively, hoist them and
// the tests on them out of loops even past stores to buffers, and unswitch loops on them (a read
// under a format test in a loop, images.cl's fast paths). An image argument is one passed as the
// image operand (the first) of an image built-in, or, through helper functions, passed on to one.
void markImageArguments(Module &M, const std::vector<Function *> &builtins) {
  std::vector<Value *> work;
  for (Function *B : builtins)
    for (User *U : B->users())
      if (auto *CB = dyn_cast<CallBase>(U); CB && CB->getCalledFunction() == B && CB->arg_size() > 0)
        work.push_back(CB->getArgOperand(0));
  std::vector<Value *> visited;
  while (!work.empty()) {
    Value *V = work.back()->stripPointerCasts();
    work.pop_back();
    if (std::find(visited.begin(), visited.end(), V) != visited.end()) continue;
    visited.push_back(V);
    // Unoptimised front-end code keeps arguments in allocas: an image loaded from one is any
    // value stored into it.
    if (auto *L = dyn_cast<LoadInst>(V))
      if (auto *AI = dyn_cast<AllocaInst>(L->getPointerOperand()->stripPointerCasts())) {
        for (User *U : AI->users())
          if (auto *S = dyn_cast<StoreInst>(U); S && S->getPointerOperand()->stripPointerCasts() == AI)
            work.push_back(S->getValueOperand());
        continue;
      }
    auto *A = dyn_cast<Argument>(V);
    if (!A || !A->getType()->isPointerTy()) continue;
    Function *F = A->getParent();
    unsigned i = A->getArgNo();
    F->addParamAttr(i, Attribute::getWithDereferenceableBytes(M.getContext(), 64));
    F->addParamAttr(i, Attribute::getWithAlignment(M.getContext(), Align(64)));
    F->addParamAttr(i, Attribute::ReadOnly);
    F->addParamAttr(i, Attribute::NoAlias);
    for (User *U : F->users())
      if (auto *CB = dyn_cast<CallBase>(U); CB && CB->getCalledFunction() == F && i < CB->arg_size())
        work.push_back(CB->getArgOperand(i));
  }
}

// ---------------------------------------------------------------------------------------------
// Kernels specialised for their images' formats (issue 13). A read inside a loop tests the
// format (and the sampler) at run time: uniform branches, and a call of the general code, that
// keep the loop's loads from being in flight together and the loop from being unrolled. For a
// kernel that reads images in a loop, the kernel's entry now tests once whether every image
// argument it reads or writes is RGBA UNORM_INT8 (or every one RGBA FLOAT) and every sampler
// argument it reads with is nearest with addressing NONE/CLAMP_TO_EDGE/CLAMP (images.cl's
// fast_sampler), and then runs a copy of its body that calls images.cl's format-known variants
// (read_imagef__cudacl_rgba8 ...: no test, no call) instead of the built-ins; otherwise its body
// as it was. Calls whose image is not an argument of the kernel itself, or whose sampler is a
// constant that is not fast, keep the built-in (which tests for itself) in the copies too.

// The value v came from: through an alloca written exactly once (unoptimised front-end code
// keeps arguments and locals in allocas) and pointer casts.
Value *rootOf(Value *v) {
  for (int depth = 0; depth < 8; depth++) {
    v = v->stripPointerCasts();
    auto *L = dyn_cast<LoadInst>(v);
    auto *AI = L ? dyn_cast<AllocaInst>(L->getPointerOperand()->stripPointerCasts()) : nullptr;
    if (!AI) return v;
    StoreInst *only = nullptr;
    for (User *U : AI->users()) {
      if (auto *S = dyn_cast<StoreInst>(U)) {
        if (S->getPointerOperand()->stripPointerCasts() != AI || only) return v;
        only = S;
      } else if (!isa<LoadInst>(U) && !isa<IntrinsicInst>(U)) {
        return v; // escapes (passed by address): not followed
      }
    }
    if (!only) return v;
    v = only->getValueOperand();
  }
  return v;
}

// images.cl's fast_sampler on a sampler's bits.
bool fastSamplerBits(uint64_t bits) { return (bits & (0x20 | 0xE)) <= 4; }

// Bytes of named private variables a kernel holds: the allocas of its unoptimised body and of
// the functions it calls (each once), as the front end leaves them before optimisation: every
// local variable and argument copy, arrays included. A rough measure of the registers its fast
// copies need whatever the schedule (see specializeKernel's .maxnreg).
uint64_t privateBytes(Function &F, std::vector<Function *> &seen) {
  if (F.isDeclaration() || std::find(seen.begin(), seen.end(), &F) != seen.end()) return 0;
  seen.push_back(&F);
  const DataLayout &DL = F.getParent()->getDataLayout();
  uint64_t n = 0;
  for (Instruction &I : instructions(F)) {
    if (auto *AI = dyn_cast<AllocaInst>(&I)) {
      if (std::optional<TypeSize> sz = AI->getAllocationSize(DL); sz && !sz->isScalable())
        n += sz->getFixedValue();
      else
        n += 1u << 20; // a dynamic alloca: too much state to bound
    } else if (auto *CB = dyn_cast<CallBase>(&I)) {
      if (Function *G = CB->getCalledFunction()) n += privateBytes(*G, seen);
    }
  }
  return n;
}

struct Mapped {
  CallInst *call;
  Argument *image; // the kernel's image argument it reads or writes
  std::string suffix; // the built-in's mangled name after "_Z11read_imagef" / "_Z12write_imagef"
  bool write;
};

// The register bound of small specialised kernels (see the end of specializeKernel); 0: none.
const uint64_t kSmallKernelBytes = 112;
const unsigned kSmallKernelRegs = 40;

bool specializeKernel(Module &M, Function &K, const Module &L) {
  static const char *kRead = "_Z11read_imagef", *kWrite = "_Z12write_imagef";
  std::vector<Mapped> calls;
  std::vector<Argument *> images, samplers;
  auto addUnique = [](std::vector<Argument *> &v, Argument *a) {
    if (std::find(v.begin(), v.end(), a) == v.end()) v.push_back(a);
  };
  DominatorTree DT(K);
  LoopInfo LI(DT);
  bool readInLoop = false;
  for (Instruction &I : instructions(K)) {
    auto *CI = dyn_cast<CallInst>(&I);
    Function *callee = CI ? CI->getCalledFunction() : nullptr;
    if (!callee || !callee->isDeclaration()) continue;
    StringRef n = callee->getName();
    bool write = n.starts_with(kWrite);
    if (!write && !n.starts_with(kRead)) continue;
    std::string suffix = n.drop_front(write ? strlen(kWrite) : strlen(kRead)).str();
    StringRef sfx(suffix);
    const char *img = write ? "_wo" : "_ro";
    bool geomOk = false;
    for (const char *g : {"14ocl_image1d", "14ocl_image2d", "14ocl_image3d"})
      geomOk = geomOk || sfx.starts_with(std::string(g) + img);
    if (!geomOk || CI->arg_size() < 2) continue;
    auto *imgArg = dyn_cast<Argument>(rootOf(CI->getArgOperand(0)));
    if (!imgArg || imgArg->getParent() != &K) continue;
    Argument *smpArg = nullptr;
    bool sampled = !write && sfx.drop_front(16).starts_with("11ocl_sampler");
    bool floatCoords = sampled && (sfx.ends_with("f") || sfx.ends_with("Dv2_f") || sfx.ends_with("Dv4_f"));
    if (sampled && floatCoords) {
      Value *r = rootOf(CI->getArgOperand(1));
      if (auto *a = dyn_cast<Argument>(r); a && a->getParent() == &K) {
        smpArg = a;
      } else if (auto *init = dyn_cast<CallInst>(r);
                 init && init->getCalledFunction() &&
                 init->getCalledFunction()->getName() == "__translate_sampler_initializer" &&
                 isa<ConstantInt>(init->getArgOperand(0))) {
        if (!fastSamplerBits(cast<ConstantInt>(init->getArgOperand(0))->getZExtValue())) continue;
      } else {
        continue;
      }
    }
    // Both variants must exist in images.cl, with the built-in's signature.
    bool have = true;
    for (const char *v : {"__cudacl_rgba8", "__cudacl_rgba32f"}) {
      std::string base = std::string(write ? "write_imagef" : "read_imagef") + v;
      const Function *F = L.getFunction("_Z" + std::to_string(base.size()) + base + suffix);
      have = have && F && !F->isDeclaration() && F->getFunctionType() == callee->getFunctionType();
    }
    if (!have) continue;
    addUnique(images, imgArg);
    if (smpArg) addUnique(samplers, smpArg);
    calls.push_back({CI, imgArg, suffix, write});
    if (!write && LI.getLoopFor(CI->getParent())) readInLoop = true;
  }
  if (!readInLoop) return false;
  std::vector<Function *> seenForState;
  const uint64_t stateBytes = privateBytes(K, seenForState);

  // The entry block's allocas and the stores of the implicit arguments (to ptxgen's __cudacl_*
  // variables, which must stay in the entry block) stay; the dispatch goes after them.
  BasicBlock &entry = K.getEntryBlock();
  auto implicitStore = [](Instruction &I) {
    auto *S = dyn_cast<StoreInst>(&I);
    auto *G = S ? dyn_cast<GlobalVariable>(getUnderlyingObject(S->getPointerOperand())) : nullptr;
    return G && G->getName().starts_with("__cudacl_");
  };
  BasicBlock::iterator split = entry.begin();
  while (split != entry.end() && (isa<AllocaInst>(&*split) || implicitStore(*split))) ++split;
  if (split == entry.end()) return false;

  // The combinations of formats that get a copy: each image's own (RGBA8 or RGBA FLOAT) for up
  // to kMaxPerImage images (a filter from RGBA8 into RGBA FLOAT gets straight-line code too);
  // beyond that, only all-RGBA8 and all-RGBA-FLOAT (2^n copies of the body would be too many).
  // Combination c gives image i the format of bit i of c (0: RGBA8, 1: RGBA FLOAT).
  static const unsigned kMaxPerImage = 2;
  const size_t n = images.size();
  std::vector<unsigned> combos;
  if (n <= kMaxPerImage) {
    for (unsigned c = 0; c < (1u << n); c++) combos.push_back(c);
  } else {
    combos = {0u, (1u << n) - 1};
  }
  auto imageIndex = [&](Argument *a) {
    return static_cast<unsigned>(std::find(images.begin(), images.end(), a) - images.begin());
  };
  static const char *kVariant[2] = {"__cudacl_rgba8", "__cudacl_rgba32f"};

  LLVMContext &C = M.getContext();
  std::vector<Function *> copies;
  for (unsigned combo : combos) {
    ValueToValueMapTy VMap;
    Function *F = CloneFunction(&K, VMap);
    std::string tag;
    for (size_t i = 0; i < n; i++) tag += (combo >> i & 1) ? "f" : "8";
    F->setName(K.getName() + ".cudacl" + tag);
    F->setLinkage(GlobalValue::InternalLinkage);
    F->setCallingConv(CallingConv::C);
    F->clearMetadata();
    F->addFnAttr(Attribute::AlwaysInline);
    F->removeFnAttr(Attribute::NoInline);
    // The implicit-argument stores stay in the kernel's own entry block.
    std::vector<Instruction *> dead;
    for (Instruction &I : F->getEntryBlock())
      if (implicitStore(I)) dead.push_back(&I);
    for (Instruction *I : dead) I->eraseFromParent();
    for (const Mapped &m : calls) {
      auto *CI = cast<CallInst>(VMap[m.call]);
      const char *v = kVariant[combo >> imageIndex(m.image) & 1];
      std::string base = std::string(m.write ? "write_imagef" : "read_imagef") + v;
      FunctionCallee var =
          M.getOrInsertFunction("_Z" + std::to_string(base.size()) + base + m.suffix, CI->getFunctionType());
      CI->setCalledFunction(var);
    }
    copies.push_back(F);
  }

  // The general body's loops stay rolled (llvm.loop.unroll.disable, which NVPTX also passes on to
  // ptxas as `.pragma "nounroll"`): it runs only for other formats or samplers, where each read
  // calls the general code out of line, and a kernel's register count is the most that any of its
  // paths needs: unrolled, the values live across those calls made it the kernel's largest path
  // (about 66 registers for a 3x3 filter, against about 32 for a fast copy).
  {
    DominatorTree DT2(K);
    LoopInfo LI2(DT2);
    for (Loop *L : LI2.getLoopsInPreorder()) {
      BasicBlock *latch = L->getLoopLatch();
      Instruction *term = latch ? latch->getTerminator() : nullptr;
      if (!term) continue;
      MDNode *disable = MDNode::get(C, MDString::get(C, "llvm.loop.unroll.disable"));
      SmallVector<Metadata *, 4> ops{nullptr};
      if (MDNode *old = term->getMetadata(LLVMContext::MD_loop))
        for (unsigned i = 1; i < old->getNumOperands(); i++) ops.push_back(old->getOperand(i));
      ops.push_back(disable);
      MDNode *loopID = MDNode::getDistinct(C, ops);
      loopID->replaceOperandWith(0, loopID);
      term->setMetadata(LLVMContext::MD_loop, loopID);
    }
  }

  // entry: [allocas, implicit stores] -> the formats -> switch: a copy per combination, or the
  // body. Each image's (order, type) word says RGBA8 (bit 0 of its kind) or RGBA FLOAT (bit 1)
  // or neither; every image must be one of the two and every sampler argument fast, else the
  // body runs.
  BasicBlock *body = entry.splitBasicBlock(split, "cudacl.general");
  entry.getTerminator()->eraseFromParent();
  IRBuilder<> B(&entry);
  Value *ok = B.getTrue();
  Value *index = B.getInt32(0);
  for (size_t i = 0; i < n; i++) {
    Value *p = B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), images[i], 32);
    Value *f = B.CreateAlignedLoad(B.getInt64Ty(), p, Align(8));
    Value *is8 = B.CreateICmpEQ(f, B.getInt64(0x10D2ull << 32 | 0x10B5));
    Value *is32 = B.CreateICmpEQ(f, B.getInt64(0x10DEull << 32 | 0x10B5));
    ok = B.CreateAnd(ok, B.CreateOr(is8, is32));
    index = B.CreateOr(index, B.CreateShl(B.CreateZExt(is32, B.getInt32Ty()), i));
  }
  for (Argument *A : samplers) {
    Value *bits = A->getType()->isPointerTy() ? B.CreatePtrToInt(A, B.getInt64Ty()) : A;
    bits = B.CreateZExtOrTrunc(bits, B.getInt64Ty());
    ok = B.CreateAnd(ok, B.CreateICmpULE(B.CreateAnd(bits, B.getInt64(0x2E)), B.getInt64(4)));
  }
  // Not every combination has a copy (more than kMaxPerImage images): the index of one that
  // has none goes to the body, as does any image of another format (index -1).
  Value *sel = B.CreateSelect(ok, index, B.getInt32(-1));
  SwitchInst *sw = B.CreateSwitch(sel, body, static_cast<unsigned>(combos.size()));
  std::vector<Value *> args;
  for (Argument &A : K.args()) args.push_back(&A);
  for (size_t j = 0; j < combos.size(); j++) {
    Function *F = copies[j];
    BasicBlock *bb = BasicBlock::Create(C, std::string("cudacl.") + F->getName().substr(K.getName().size() + 7).str(), &K, body);
    IRBuilder<> Bb(bb);
    CallInst *call = Bb.CreateCall(F, args);
    // The arguments' attributes (byval ...) on the call as on the copy's parameters.
    std::vector<AttributeSet> params;
    for (unsigned i = 0; i < F->arg_size(); i++) params.push_back(F->getAttributes().getParamAttrs(i));
    call->setAttributes(AttributeList::get(C, AttributeSet(), AttributeSet(), params));
    Bb.CreateRetVoid();
    sw->addCase(B.getInt32(combos[j]), bb);
  }
  // Registers. ptxas gives a kernel one register count, the most that any of its paths needs: here
  // the general body, whose values live across its calls of the general code (about 48 for a 3x3
  // filter), while the fast copies need about 32 (5 against 8 blocks of 256 work-items per SM).
  // A kernel whose named private state is small (privateBytes: a 3x3 or 5x5 filter, 76-100
  // bytes) is bounded to kSmallKernelRegs (.maxnreg): its copies then fit (one spilled value, at
  // the entry), the general body spills a little. Kernels with more state (a bilateral filter, a
  // window's statistics: 144-148 bytes, 56-60 registers unbounded) would spill in their fast
  // copies too, and keep what ptxas gives them. PTXGEN_IMAGES_MAXNREG=N (0: none) overrides the
  // bound, for measurements.
  unsigned maxnreg = stateBytes <= kSmallKernelBytes ? kSmallKernelRegs : 0;
  if (const char *e = std::getenv("PTXGEN_IMAGES_MAXNREG"); e && *e) maxnreg = static_cast<unsigned>(std::atoi(e));
  if (maxnreg > 0) {
    NamedMDNode *NMD = M.getOrInsertNamedMetadata("nvvm.annotations");
    Metadata *ops[] = {ValueAsMetadata::get(&K), MDString::get(C, "maxnreg"),
                       ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(C), maxnreg))};
    NMD->addOperand(MDNode::get(C, ops));
  }
  return true;
}

// Specialises every kernel of M that reads images in a loop (see above); L: images.cl.
void specializeKernels(Module &M, const Module &L) {
  std::vector<Function *> kernels;
  for (Function &F : M)
    if (!F.isDeclaration() && F.getReturnType()->isVoidTy() &&
        (F.getCallingConv() == CallingConv::SPIR_KERNEL || F.getCallingConv() == CallingConv::PTX_Kernel))
      kernels.push_back(&F);
  for (Function *K : kernels) specializeKernel(M, *K, L);
}

} // namespace

extern "C" {

// 1 when M calls an image built-in or initialises a sampler (pg_link_images has work to do).
int pg_images_used(LLVMModuleRef mref) {
  return guarded(nullptr, 0, "", [&] {
    Module &M = *unwrap(mref);
    for (Function &F : M)
      if (F.isDeclaration() && !F.use_empty() &&
          (isImageBuiltin(F.getName()) || F.getName() == "__translate_sampler_initializer"))
        return 1;
    return 0;
  });
}

// Defines __translate_sampler_initializer and links the image built-ins M calls from images.cl's
// bitcode (bc, len). Returns 0 ok, 1 failure (log says why).
int pg_link_images(LLVMModuleRef mref, const char *bc, size_t len, char **log) {
  return guarded(log, 1, "internal error while linking the image built-ins", [&] {
    Module &M = *unwrap(mref);
    defineSamplerInitializer(M);
    bool needed = false;
    for (Function &F : M)
      if (F.isDeclaration() && !F.use_empty() && isImageBuiltin(F.getName())) needed = true;
    if (!needed) return 0;
    std::unique_ptr<Module> L = loadBuiltinLibrary(M, bc, len, "images.cl", "image built-ins", log);
    if (!L) return 1;
    std::string err;
    if (!defineHelpers(*L, err)) {
      setLog(log, "error: " + err + "\n");
      return 1;
    }
    dropConvergent(*L);
    specializeKernels(M, *L);
    std::vector<Function *> all, linked;
    if (!linkBuiltinLibrary(M, std::move(L), "image built-ins", log, &all)) return 1;
    for (Function *F : all)
      if (isImageBuiltin(F->getName())) linked.push_back(F);
    for (Function *F : linked)
      for (User *U : F->users())
        if (auto *CB = dyn_cast<CallBase>(U)) CB->removeFnAttr(Attribute::Convergent);
    markImageArguments(M, linked);
    return invalidIR(M, "linking the image built-ins", log) ? 1 : 0;
  });
}

} // extern "C"

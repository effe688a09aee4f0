// Kernel signatures and the implicit parameters (issue 24: split from bridge.cpp): __local
// pointer parameters become offsets into the dynamic shared array, the implicit parameters are
// appended and read by the id built-ins, kernel annotations, pointer alignment.
#include "bridge.h"

#include <llvm/IR/InlineAsm.h>
#include <llvm/Support/CommandLine.h>

using namespace llvm;

namespace {

GlobalVariable *dynShared(Module &M) {
  const char *name = "__cudacl_dynshared";
  if (auto *G = M.getNamedGlobal(name)) return G;
  auto *Ty = ArrayType::get(Type::getInt8Ty(M.getContext()), 0);
  auto *G = new GlobalVariable(M, Ty, false, GlobalValue::ExternalLinkage, nullptr, name,
                               nullptr, GlobalValue::NotThreadLocal, AS_LOCAL);
  // 128: every __local argument starts at a multiple of its type's alignment, up to
  // long16/double16 (the CTS's kernel_memory_alignment_local); the runtime aligns the offsets so.
  G->setAlignment(Align(128));
  return G;
}

GlobalVariable *sharedVar(Module &M, const char *name, Type *Ty, unsigned align) {
  if (auto *G = M.getNamedGlobal(name)) return G;
  auto *G = new GlobalVariable(M, Ty, false, GlobalValue::InternalLinkage, UndefValue::get(Ty),
                               name, nullptr, GlobalValue::NotThreadLocal, AS_LOCAL);
  G->setAlignment(Align(align));
  return G;
}

} // namespace

bool used(Module &M, const char *name) {
  Function *F = M.getFunction(name);
  return F && !F->use_empty();
}

// Calls to a kernel from another kernel keep calling an ordinary copy of it.
void detachKernelCalls(Function *F) {
  std::vector<CallBase *> calls;
  for (User *U : F->users())
    if (auto *CB = dyn_cast<CallBase>(U))
      if (CB->getCalledFunction() == F) calls.push_back(CB);
  if (calls.empty()) return;
  ValueToValueMapTy VM;
  Function *copy = CloneFunction(F, VM);
  copy->setName("__cudacl_fn_" + F->getName());
  copy->setLinkage(GlobalValue::InternalLinkage);
  copy->setCallingConv(CallingConv::C);
  copy->clearMetadata();
  for (CallBase *CB : calls) {
    CB->setCalledFunction(copy);
    CB->setCallingConv(CallingConv::C);
  }
}

namespace {

// Kernel signature rewrite: __local pointers -> i32 offsets into the dynamic shared array;
// implicit parameters appended (3 x i64 global offset, i32 work_dim), stored at entry into
// shared variables that get_global_offset/get_work_dim/get_global_id read.
// A vector argument aligned above 16 bytes (float8, double3, long16...), or nullptr. The CUDA
// driver does not lay out kernel parameters aligned above 16 as the PTX says (launches of such
// kernels failed with CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES on the H100: piglit's vector-conversion),
// so they are passed as arrays of 16-byte vectors instead.
FixedVectorType *wideVectorParam(const DataLayout &DL, Type *T) {
  auto *VT = dyn_cast<FixedVectorType>(T);
  if (!VT || DL.getABITypeAlign(VT).value() <= 16) return nullptr;
  uint64_t es = DL.getTypeStoreSize(VT->getElementType()).getFixedValue();
  if (es == 0 || 16 % es != 0 || VT->getElementType()->getScalarSizeInBits() != es * 8 ||
      DL.getTypeAllocSize(VT).getFixedValue() % 16 != 0)
    return nullptr;
  return VT;
}

ArrayType *chunkedParamType(const DataLayout &DL, FixedVectorType *VT) {
  uint64_t es = DL.getTypeStoreSize(VT->getElementType()).getFixedValue();
  return ArrayType::get(FixedVectorType::get(VT->getElementType(), 16 / es),
                        DL.getTypeAllocSize(VT).getFixedValue() / 16);
}

// The vector back from its 16-byte chunks.
Value *joinChunks(IRBuilder<> &B, Value *arr, FixedVectorType *VT) {
  auto *AT = cast<ArrayType>(arr->getType());
  unsigned k = cast<FixedVectorType>(AT->getElementType())->getNumElements();
  Value *v = PoisonValue::get(VT);
  for (unsigned i = 0; i < VT->getNumElements(); i++) {
    Value *chunk = B.CreateExtractValue(arr, {i / k});
    v = B.CreateInsertElement(v, B.CreateExtractElement(chunk, (uint64_t)(i % k)), (uint64_t)i);
  }
  return v;
}

} // namespace

Function *rewriteKernel(Module &M, Function *F, bool needOffset, bool needDim, bool needGroups) {
  LLVMContext &C = M.getContext();
  const DataLayout &DL = M.getDataLayout();
  Type *i32 = Type::getInt32Ty(C), *i64 = Type::getInt64Ty(C);
  FunctionType *FT = F->getFunctionType();
  std::vector<Type *> params;
  std::vector<bool> isLocal;
  std::vector<FixedVectorType *> wide;
  AttributeList AL = F->getAttributes();
  // By-value structs aligned above 16 (a float8 member, aligned(32)): the same driver limit; they
  // arrive as 16-aligned bytes and are copied into a properly aligned private copy.
  std::vector<Type *> wideByval;
  for (unsigned i = 0; i < FT->getNumParams(); i++) {
    Type *BT = AL.getParamByValType(i);
    bool over = BT && std::max(DL.getABITypeAlign(BT), AL.getParamAlignment(i).valueOrOne()).value() > 16;
    wideByval.push_back(over ? BT : nullptr);
  }
  for (Type *T : FT->params()) {
    bool loc = T->isPointerTy() && T->getPointerAddressSpace() == AS_LOCAL;
    FixedVectorType *VT = loc ? nullptr : wideVectorParam(DL, T);
    isLocal.push_back(loc);
    wide.push_back(VT);
    params.push_back(loc ? i32 : VT ? chunkedParamType(DL, VT) : T);
  }
  unsigned nuser = params.size();
  params.push_back(i64);
  params.push_back(i64);
  params.push_back(i64);
  params.push_back(i32);
  for (int i = 0; i < 6; i++) params.push_back(i32);  // group offset x/y/z, group count x/y/z
  FunctionType *NFT = FunctionType::get(FT->getReturnType(), params, false);
  Function *NF = Function::Create(NFT, F->getLinkage(), F->getAddressSpace(), "", &M);
  NF->takeName(F);
  NF->setCallingConv(F->getCallingConv());
  NF->copyAttributesFrom(F);
  // Parameter attributes: kept for unchanged parameters, dropped for the rewritten ones.
  std::vector<AttributeSet> pattrs;
  for (unsigned i = 0; i < nuser; i++) {
    if (wideByval[i]) {
      AttrBuilder AB(C);
      AB.addByValAttr(ArrayType::get(Type::getInt8Ty(C), DL.getTypeAllocSize(wideByval[i])));
      AB.addAlignmentAttr(Align(16));
      pattrs.push_back(AttributeSet::get(C, AB));
    } else {
      pattrs.push_back(isLocal[i] || wide[i] ? AttributeSet() : AL.getParamAttrs(i));
    }
  }
  for (int i = 0; i < 10; i++) pattrs.push_back(AttributeSet());
  NF->setAttributes(AttributeList::get(C, AL.getFnAttrs(), AL.getRetAttrs(), pattrs));
  NF->addFnAttr("cudacl-user-args", std::to_string(nuser));
  SmallVector<std::pair<unsigned, MDNode *>, 8> mds;
  F->getAllMetadata(mds);
  for (auto &md : mds) NF->setMetadata(md.first, md.second);

  NF->splice(NF->begin(), F);
  BasicBlock &entry = NF->getEntryBlock();
  IRBuilder<> B(&entry, entry.getFirstInsertionPt());
  auto oldArg = F->arg_begin();
  auto newArg = NF->arg_begin();
  for (unsigned i = 0; i < nuser; i++, ++oldArg, ++newArg) {
    newArg->setName(oldArg->getName());
    if (isLocal[i]) {
      Value *off = B.CreateZExt(&*newArg, Type::getInt64Ty(C));
      Value *p = B.CreateInBoundsGEP(Type::getInt8Ty(C), dynShared(M), {off},
                                     oldArg->getName() + ".local");
      oldArg->replaceAllUsesWith(p);
    } else if (wide[i]) {
      oldArg->replaceAllUsesWith(joinChunks(B, &*newArg, wide[i]));
    } else if (Type *BT = wideByval[i]) {
      Align a = std::max(DL.getABITypeAlign(BT), AL.getParamAlignment(i).valueOrOne());
      AllocaInst *copy = B.CreateAlloca(BT, DL.getAllocaAddrSpace(), nullptr, oldArg->getName() + ".copy");
      copy->setAlignment(a);
      B.CreateMemCpy(copy, a, &*newArg, Align(16), DL.getTypeAllocSize(BT));
      oldArg->replaceAllUsesWith(copy);
    } else {
      oldArg->replaceAllUsesWith(&*newArg);
    }
  }
  Argument *o0 = &*newArg++;
  Argument *o1 = &*newArg++;
  Argument *o2 = &*newArg++;
  Argument *wd = &*newArg++;
  o0->setName("__cudacl_goff0");
  o1->setName("__cudacl_goff1");
  o2->setName("__cudacl_goff2");
  wd->setName("__cudacl_work_dim");
  if (needOffset) {
    ArrayType *AT = ArrayType::get(i64, 3);
    GlobalVariable *G = sharedVar(M, "__cudacl_goff", AT, 8);
    Argument *os[3] = {o0, o1, o2};
    for (int d = 0; d < 3; d++)
      B.CreateStore(os[d], B.CreateConstInBoundsGEP2_32(AT, G, 0, d));
  }
  if (needDim) B.CreateStore(wd, sharedVar(M, "__cudacl_wdim", i32, 4));
  // A launch of more groups than CUDA's grid takes in y or z (65535) is issued in pieces: each
  // piece says where its groups start and how many the whole NDRange has.
  ArrayType *GT = ArrayType::get(i32, 6);
  GlobalVariable *G = needGroups ? sharedVar(M, "__cudacl_groups", GT, 4) : nullptr;
  for (int i = 0; i < 6; i++) {
    Argument *a = &*newArg++;
    a->setName(i < 3 ? "__cudacl_group_base" : "__cudacl_num_groups");
    if (G) B.CreateStore(a, B.CreateConstInBoundsGEP2_32(GT, G, 0, i));
  }

  F->replaceAllUsesWith(NF);  // nvvm.annotations and other metadata users
  F->eraseFromParent();
  return NF;
}

// A knob of pipeline.rs (PTXGEN_OPAQUE_GLOBAL_SIZE): get_global_size's multiply (group count x
// ntid) as an inline-assembly mul.wide.u32, opaque to ScalarEvolution. Seen through, SCEV factors
// ntid out of a grid-stride loop's index (group x ntid + tid) and step (groups x ntid), and a loop
// unrolled by `#pragma unroll 4` then re-derives each copy's bound as (group + k x groups) x ntid:
// a dozen 64-bit values live in the loop, 40 registers where NVIDIA's compiler needs 20 (1024
// groups of 256 took two waves on an H200 instead of one, 0.65x NVIDIA's bandwidth).
cl::opt<bool> OpaqueGlobalSize("ptxgen-opaque-global-size", cl::init(false), cl::Hidden,
                               cl::desc("get_global_size's multiply hidden from ScalarEvolution"));

// get_global_offset(d), get_work_dim(), a get_global_id(d) that adds the offset, and
// get_group_id, get_num_groups and get_global_size that count the groups of the whole NDRange
// (a launch may be issued in pieces, see rewriteKernel).
void defineIdFunctions(Module &M, bool needOffset, bool needDim, bool needGroups) {
  LLVMContext &C = M.getContext();
  Type *i32 = Type::getInt32Ty(C), *i64 = Type::getInt64Ty(C);
  auto prepare = [&](Function *F) {
    F->setLinkage(GlobalValue::InternalLinkage);
    F->removeFnAttr(Attribute::Memory);
    F->addFnAttr(Attribute::AlwaysInline);
    F->removeFnAttr(Attribute::NoInline);
    F->removeFnAttr(Attribute::OptimizeNone);
    F->setMemoryEffects(MemoryEffects::readOnly());
    for (User *U : F->users())
      if (auto *CB = dyn_cast<CallBase>(U)) {
        CB->removeFnAttr(Attribute::Memory);
        CB->setMemoryEffects(MemoryEffects::readOnly());
      }
  };
  ArrayType *AT = ArrayType::get(i64, 3);
  auto loadOffset = [&](IRBuilder<> &B, Value *d) -> Value * {
    GlobalVariable *G = sharedVar(M, "__cudacl_goff", AT, 8);
    Value *in = B.CreateICmpULT(d, ConstantInt::get(i32, 3));
    Value *idx = B.CreateSelect(in, d, ConstantInt::get(i32, 0));
    Value *p = B.CreateInBoundsGEP(AT, G, {ConstantInt::get(i32, 0), idx});
    Value *v = B.CreateAlignedLoad(i64, p, Align(8));
    return B.CreateSelect(in, v, ConstantInt::get(i64, 0));
  };
  if (needOffset) {
    if (Function *F = M.getFunction("_Z17get_global_offsetj"); F && F->isDeclaration()) {
      prepare(F);
      IRBuilder<> B(BasicBlock::Create(C, "entry", F));
      B.CreateRet(loadOffset(B, F->getArg(0)));
    }
    if (Function *F = M.getFunction("_Z13get_global_idj"); F && F->isDeclaration()) {
      prepare(F);
      FunctionType *idT = FunctionType::get(i64, {i32}, false);
      FunctionCallee grp = M.getOrInsertFunction("_Z12get_group_idj", idT);
      FunctionCallee lsz = M.getOrInsertFunction("_Z14get_local_sizej", idT);
      FunctionCallee lid = M.getOrInsertFunction("_Z12get_local_idj", idT);
      IRBuilder<> B(BasicBlock::Create(C, "entry", F));
      Value *d = F->getArg(0);
      // One builder call per statement: C++ leaves the order in which arguments are evaluated
      // open (GCC evaluates them in opposite orders on x86-64 and aarch64), and the order of
      // the instructions decides the PTX. ptxgen must give the same PTX on every host.
      // No step wraps: the group id is below 2^31 (the runtime's grid limit, core/kernel.rs),
      // the local size at most 1024, and the spec keeps offset + global size inside size_t.
      // Saying so lets the group id times the local size become one mul.wide.u32 and lets
      // loops that start at the global id compute their trip counts.
      Value *group = B.CreateCall(grp, {d});
      Value *size = B.CreateCall(lsz, {d});
      Value *g = B.CreateMul(group, size, "", /*HasNUW=*/true, /*HasNSW=*/true);
      Value *local = B.CreateCall(lid, {d});
      Value *gl = B.CreateAdd(g, local, "", true, true);
      Value *off = loadOffset(B, d);
      Value *v = B.CreateAdd(gl, off, "", /*HasNUW=*/true);
      B.CreateRet(v);
    }
  }
  if (needDim) {
    if (Function *F = M.getFunction("_Z12get_work_dimv"); F && F->isDeclaration()) {
      prepare(F);
      IRBuilder<> B(BasicBlock::Create(C, "entry", F));
      B.CreateRet(B.CreateAlignedLoad(i32, sharedVar(M, "__cudacl_wdim", i32, 4), Align(4)));
    }
  }
  if (needGroups) {
    ArrayType *GT = ArrayType::get(i32, 6);
    // groups[first + d] for d < 3 (as size_t), else `other`; `hw` (if given) adds the special
    // register of dimension d: ctaid for the group id, ntid (times the count) for the size.
    auto define = [&](const char *name, unsigned first, Intrinsic::ID hw[3], bool times, uint64_t other) {
      Function *F = M.getFunction(name);
      if (!F || !F->isDeclaration()) return;
      prepare(F);
      IRBuilder<> B(BasicBlock::Create(C, "entry", F));
      Value *d = F->getArg(0);
      Value *in = B.CreateICmpULT(d, ConstantInt::get(i32, 3));
      Value *idx = B.CreateAdd(B.CreateSelect(in, d, ConstantInt::get(i32, 0)), ConstantInt::get(i32, first));
      Value *p = B.CreateInBoundsGEP(GT, sharedVar(M, "__cudacl_groups", GT, 4), {ConstantInt::get(i32, 0), idx});
      Value *v = B.CreateAlignedLoad(i32, p, Align(4));
      if (hw) {
        Value *r[3];
        for (int k = 0; k < 3; k++) r[k] = B.CreateIntrinsic(hw[k], {}, {});
        // Sequenced (see get_global_id above): the same instruction order on every host.
        Value *is0 = B.CreateICmpEQ(d, ConstantInt::get(i32, 0));
        Value *is1 = B.CreateICmpEQ(d, ConstantInt::get(i32, 1));
        Value *r12 = B.CreateSelect(is1, r[1], r[2]);
        Value *reg = B.CreateSelect(is0, r[0], r12);
        // The group id (first group of this piece + ctaid) is below the NDRange's group count,
        // which the runtime keeps below 2^31: a 32-bit add that cannot wrap. The global size
        // (group count x ntid) needs 64 bits: a widening multiply.
        if (times && OpaqueGlobalSize) {
          // The same widening multiply, where ScalarEvolution cannot see into it (see the knob).
          FunctionType *FT = FunctionType::get(i64, {i32, i32}, false);
          CallInst *mul = B.CreateCall(InlineAsm::get(FT, "mul.wide.u32 $0, $1, $2;", "=l,r,r", false), {v, reg});
          mul->setDoesNotAccessMemory();
          mul->setDoesNotThrow();
          mul->addFnAttr(Attribute::WillReturn);
          v = mul;
        } else if (times) {
          Value *count = B.CreateZExt(v, i64);
          Value *width = B.CreateZExt(reg, i64);
          v = B.CreateMul(count, width, "", true, true);
        } else {
          Value *group = B.CreateAdd(v, reg, "", true, true);
          v = B.CreateZExt(group, i64);
        }
      } else {
        v = B.CreateZExt(v, i64);
      }
      B.CreateRet(B.CreateSelect(in, v, ConstantInt::get(i64, other)));
    };
    Intrinsic::ID ctaid[3] = {Intrinsic::nvvm_read_ptx_sreg_ctaid_x, Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
                              Intrinsic::nvvm_read_ptx_sreg_ctaid_z};
    Intrinsic::ID ntid[3] = {Intrinsic::nvvm_read_ptx_sreg_ntid_x, Intrinsic::nvvm_read_ptx_sreg_ntid_y,
                             Intrinsic::nvvm_read_ptx_sreg_ntid_z};
    define("_Z12get_group_idj", 0, ctaid, false, 0);
    define("_Z14get_num_groupsj", 3, nullptr, false, 1);
    define("_Z15get_global_sizej", 3, ntid, true, 1);
  }
}

void addAnnotation(Module &M, Function *F, const char *key, unsigned val) {
  LLVMContext &C = M.getContext();
  NamedMDNode *NMD = M.getOrInsertNamedMetadata("nvvm.annotations");
  Metadata *ops[] = {ValueAsMetadata::get(F), MDString::get(C, key),
                     ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(C), val))};
  NMD->addOperand(MDNode::get(C, ops));
}

bool hasKernelAnnotation(Module &M, Function *F) {
  NamedMDNode *NMD = M.getNamedMetadata("nvvm.annotations");
  if (!NMD) return false;
  for (MDNode *N : NMD->operands()) {
    if (N->getNumOperands() < 2) continue;
    auto *V = dyn_cast_or_null<ValueAsMetadata>(N->getOperand(0).get());
    auto *S = dyn_cast_or_null<MDString>(N->getOperand(1).get());
    if (V && S && V->getValue() == F && S->getString() == "kernel") return true;
  }
  return false;
}

namespace {

// A __global or __constant pointer argument of a kernel is a buffer's (or sub-buffer's) device
// address or NULL (OpenCL 1.2 has no other way to pass one): cudacl's buffers start on 256-byte
// boundaries (cuMemAlloc), sub-buffer origins are multiples of CL_DEVICE_MEM_BASE_ADDR_ALIGN
// (2048 bits) and a zero-copy CL_MEM_USE_HOST_PTR buffer is used only when the application's
// pointer is a multiple of CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE (128 bytes). Telling LLVM lets it
// widen accesses whose alignment follows from the index: vload4/vstore4 of uchar at i * 4
// become one 32-bit access instead of four byte accesses (convertTo, LUT).
constexpr unsigned KERNEL_POINTER_ALIGN = 128;

} // namespace

void alignKernelPointerArgs(Function *F) {
  MDNode *types = F->getMetadata("kernel_arg_type");
  MDNode *spaces = F->getMetadata("kernel_arg_addr_space");
  if (!types || !spaces) return;
  unsigned n = std::min({types->getNumOperands(), spaces->getNumOperands(), (unsigned)F->arg_size()});
  for (unsigned i = 0; i < n; i++) {
    auto *t = dyn_cast<MDString>(types->getOperand(i));
    auto *as = mdconst::dyn_extract<ConstantInt>(spaces->getOperand(i));
    Argument *A = F->getArg(i);
    // OpenCL address spaces in kernel_arg_addr_space: 1 global, 2 constant.
    if (!t || !as || !t->getString().ends_with("*") || (as->getZExtValue() != 1 && as->getZExtValue() != 2))
      continue;
    // clang marks them with the pointee's alignment (align 1 for uchar *): raised, never lowered.
    if (!A->getType()->isPointerTy() || A->hasByValAttr() || A->getParamAlign().valueOrOne() >= KERNEL_POINTER_ALIGN)
      continue;
    A->removeAttr(Attribute::Alignment);
    A->addAttr(Attribute::getWithAlignment(F->getContext(), Align(KERNEL_POINTER_ALIGN)));
  }
}

// After optimisation: the implicit global offset, work_dim and group base/count that kernels
// store into .shared variables at entry (for the id builtins, which are functions of their own
// before inlining) are read back, after inlining, in the kernel that stored them. Such a load
// becomes the kernel's parameter itself (every work-item of a launch stores the same value, so
// what it reads is that parameter), and a variable that nothing reads any more loses its
// stores and goes: no shared memory and no stores at every kernel's entry for nothing.
void forwardImplicitArgs(Module &M) {
  const DataLayout &DL = M.getDataLayout();
  // GlobalOpt may have split an array into one variable per element (__cudacl_goff.p1.0...).
  std::vector<GlobalVariable *> vars;
  for (GlobalVariable &G : M.globals())
    for (const char *prefix : {"__cudacl_goff", "__cudacl_groups", "__cudacl_wdim"})
      if (G.getName().starts_with(prefix) && G.getAddressSpace() == AS_LOCAL) vars.push_back(&G);
  for (GlobalVariable *G : vars) {
    for (Function &F : M) {
      if (F.isDeclaration()) continue;
      // byte offset -> the argument the kernel's entry block stores there.
      std::map<int64_t, Value *> stored;
      std::vector<std::pair<LoadInst *, int64_t>> loads;
      for (Instruction &I : instructions(F)) {
        Value *ptr = nullptr;
        if (auto *S = dyn_cast<StoreInst>(&I)) ptr = S->getPointerOperand();
        else if (auto *L = dyn_cast<LoadInst>(&I)) ptr = L->getPointerOperand();
        if (!ptr) continue;
        APInt off(DL.getIndexTypeSizeInBits(ptr->getType()), 0);
        if (ptr->stripAndAccumulateConstantOffsets(DL, off, /*AllowNonInbounds=*/true) != G) continue;
        int64_t o = off.getSExtValue();
        if (auto *S = dyn_cast<StoreInst>(&I)) {
          bool fromEntry = isa<Argument>(S->getValueOperand()) && S->getParent() == &F.getEntryBlock() &&
                           !S->isVolatile();
          stored[o] = fromEntry && !stored.count(o) ? S->getValueOperand() : nullptr;
        } else if (!cast<LoadInst>(&I)->isVolatile()) {
          loads.push_back({cast<LoadInst>(&I), o});
        }
      }
      for (auto &[L, o] : loads) {
        auto it = stored.find(o);
        if (it == stored.end() || !it->second || it->second->getType() != L->getType()) continue;
        L->replaceAllUsesWith(it->second);
        L->eraseFromParent();
      }
    }
    // Only stores left (through constant offsets)? Then nothing reads the variable.
    G->removeDeadConstantUsers();
    std::vector<StoreInst *> stores;
    std::vector<Value *> work(G->user_begin(), G->user_end());
    bool onlyStores = true;
    while (!work.empty() && onlyStores) {
      Value *U = work.back();
      work.pop_back();
      if (auto *S = dyn_cast<StoreInst>(U)) {
        onlyStores = S->getValueOperand() != G && !S->isVolatile();
        stores.push_back(S);
      } else if (isa<GEPOperator>(U) || isa<BitCastOperator>(U) || isa<AddrSpaceCastOperator>(U)) {
        for (User *UU : U->users()) work.push_back(UU);
      } else {
        onlyStores = false;
      }
    }
    if (!onlyStores) continue;
    for (StoreInst *S : stores) {
      Value *ptr = S->getPointerOperand();
      S->eraseFromParent();
      if (auto *I = dyn_cast<Instruction>(ptr); I && I->use_empty()) I->eraseFromParent();
    }
    G->removeDeadConstantUsers();
    if (G->use_empty()) G->eraseFromParent();
  }
}

// OpenCL C 2.0/3.0's work-item functions libclc lacks, written with the 1.2 ones (which
// defineIdFunctions and libclc then define): get_enqueued_local_size is get_local_size (cudacl's
// work-groups are uniform: a local size must divide the global size), and the linear ids are
// the specification's formulas (3.0 6.15.1), the global one counted from the global offset.
// Runs first in pg_lower, so that the calls it makes count as uses of what they call.
void defineLinearIds(Module &M) {
  LLVMContext &C = M.getContext();
  Type *i32 = Type::getInt32Ty(C), *i64 = Type::getInt64Ty(C);
  FunctionType *idT = FunctionType::get(i64, {i32}, false);
  auto body = [&](const char *name, unsigned nargs) -> Function * {
    Function *F = M.getFunction(name);
    if (!F || !F->isDeclaration() || F->arg_size() != nargs || !F->getReturnType()->isIntegerTy(64))
      return nullptr;
    F->setLinkage(GlobalValue::InternalLinkage);
    F->addFnAttr(Attribute::AlwaysInline);
    return F;
  };
  auto call = [&](IRBuilder<> &B, const char *name, unsigned d) -> Value * {
    return B.CreateCall(M.getOrInsertFunction(name, idT), {ConstantInt::get(i32, d)});
  };
  if (Function *F = body("_Z23get_enqueued_local_sizej", 1)) {
    IRBuilder<> B(BasicBlock::Create(C, "entry", F));
    B.CreateRet(B.CreateCall(M.getOrInsertFunction("_Z14get_local_sizej", idT), {F->getArg(0)}));
  }
  // ((id(2) - base(2)) * size(1) + (id(1) - base(1))) * size(0) + (id(0) - base(0)); one
  // builder call per statement (the instruction order must not depend on the C++ compiler).
  auto linear = [&](Function *F, const char *id, const char *size, const char *base) {
    IRBuilder<> B(BasicBlock::Create(C, "entry", F));
    Value *acc = nullptr;
    for (int d = 2; d >= 0; d--) {
      Value *v = call(B, id, d);
      if (base) {
        Value *b = call(B, base, d);
        v = B.CreateSub(v, b);
      }
      if (acc) {
        Value *s = call(B, size, d);
        Value *scaled = B.CreateMul(acc, s);
        v = B.CreateAdd(scaled, v);
      }
      acc = v;
    }
    B.CreateRet(acc);
  };
  if (Function *F = body("_Z20get_global_linear_idv", 0))
    linear(F, "_Z13get_global_idj", "_Z15get_global_sizej", "_Z17get_global_offsetj");
  if (Function *F = body("_Z19get_local_linear_idv", 0))
    linear(F, "_Z12get_local_idj", "_Z14get_local_sizej", nullptr);
}

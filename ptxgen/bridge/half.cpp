// cl_khr_fp16's built-ins, which libclc 19 does not have for half (it has vload_half/vstore_half
// only). Half arithmetic itself is plain LLVM IR (`fadd half`...): NVPTX emits the f16
// instructions from sm_53 on and computes in f32 before. This pass runs first (before pg_lower,
// whose fixes of libclc then apply to the float calls made here, and before images.cl and libclc
// are linked) and gives every half built-in a program declares a body:
//   - most take their float counterpart: the same mangled name with each half (Dh) a float (f),
//     the half arguments extended (exactly), the result rounded to half (round to nearest even).
//     Every half value is a float, and the float built-ins are at least as accurate as half
//     needs, so this is as accurate as OpenCL asks of half (it is how CUDA's own hsin etc. work);
//   - results that must be exact at half precision have their own code: fma/mad (llvm.fma.f16,
//     PTX fma.rn.f16; before sm_53 a double fma rounded to odd), nextafter (on the bits), fract
//     (clamped below 1 at half precision);
//   - conversions to half (convert_half*_rte/rtz/rtp/rtn) are PTX cvt with that rounding, from
//     every integer type, float and double (one rounding: no float in between);
//   - relational functions return shortn for half vectors (their float forms intn), select and
//     bitselect work on the bits, vloadn/vstoren, shuffle/shuffle2 and nan are written out,
//     async_work_group_(strided_)copy and prefetch take the ushort forms (same bits);
//   - read_imageh/write_imageh take read_imagef/write_imagef (images.cl) with the conversion.
// The bodies are internal and always-inline, like every other built-in ptxgen defines.
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>
#include <llvm-c/Types.h>

#include <cstring>
#include <string>
#include <vector>

using namespace llvm;

namespace {

bool isHalfish(Type *T) { return T->getScalarType()->isHalfTy(); }

// The type with every half element a float.
Type *toFloat(Type *T) {
  if (T->isHalfTy()) return Type::getFloatTy(T->getContext());
  if (auto *V = dyn_cast<FixedVectorType>(T))
    if (V->getElementType()->isHalfTy()) return FixedVectorType::get(Type::getFloatTy(T->getContext()), V->getNumElements());
  return T;
}

unsigned lanes(Type *T) {
  auto *V = dyn_cast<FixedVectorType>(T);
  return V ? V->getNumElements() : 1;
}

std::string mangle(StringRef base, StringRef args) { return "_Z" + std::to_string(base.size()) + base.str() + args.str(); }

// Every "Dh" (half) of a mangled argument list replaced by `with`.
std::string replaceHalf(StringRef args, StringRef with) {
  std::string out;
  for (size_t i = 0; i < args.size(); i++) {
    if (args[i] == 'D' && i + 1 < args.size() && args[i + 1] == 'h') {
      out += with.str();
      i++;
    } else {
      out += args[i];
    }
  }
  return out;
}

// The built-ins that take their float counterpart (math, common, geometric, relational; the
// conversions from half are recognised by name). A program's own undefined functions are not
// among them and stay undefined (the build reports them).
bool viaFloat(StringRef b) {
  static const char *names[] = {
      "acos", "acosh", "acospi", "asin", "asinh", "asinpi", "atan", "atan2", "atanh", "atanpi", "atan2pi", "cbrt",
      "ceil", "copysign", "cos", "cosh", "cospi", "erfc", "erf", "exp", "exp2", "exp10", "expm1", "fabs", "fdim",
      "floor", "fmax", "fmin", "fmod", "frexp", "hypot", "ilogb", "ldexp", "lgamma", "lgamma_r", "log", "log2",
      "log10", "log1p", "logb", "maxmag", "minmag", "pow", "pown", "powr", "remainder", "remquo", "rint", "rootn",
      "round", "rsqrt", "sin", "sinh", "sinpi", "sqrt", "tan", "tanh", "tanpi", "tgamma", "trunc", "clamp",
      "degrees", "max", "min", "mix", "radians", "step", "smoothstep", "sign", "cross", "dot", "distance", "length",
      "normalize"};
  for (const char *n : names)
    if (b == n) return true;
  return b.starts_with("convert_");
}

bool isRelational(StringRef b) {
  static const char *names[] = {"isequal", "isnotequal", "isgreater", "isgreaterequal", "isless", "islessequal",
                                "islessgreater", "isfinite", "isinf", "isnan", "isnormal", "isordered",
                                "isunordered", "signbit"};
  for (const char *n : names)
    if (b == n) return true;
  return false;
}

// The element type code that ends a mangled argument (the last argument's scalar type).
char lastTypeCode(StringRef args) { return args.empty() ? 0 : args.back(); }

void makeBody(Function &F) {
  F.setLinkage(GlobalValue::InternalLinkage);
  F.removeFnAttr(Attribute::NoInline);
  F.removeFnAttr(Attribute::OptimizeNone);
  F.addFnAttr(Attribute::AlwaysInline);
}

// Applies `f` to each lane of `v` (a scalar is one lane), building a value of type `to`.
template <typename Fn>
Value *perLane(IRBuilder<> &B, Value *v, Type *to, Fn f) {
  if (!v->getType()->isVectorTy()) return f(v);
  Value *r = PoisonValue::get(to);
  for (unsigned i = 0; i < lanes(v->getType()); i++) r = B.CreateInsertElement(r, f(B.CreateExtractElement(v, i)), i);
  return r;
}

// convert_half*[_rte|_rtz|_rtp|_rtn](x): PTX cvt with that rounding, one lane at a time.
bool defineConvertToHalf(Function &F, StringRef base, StringRef args) {
  StringRef rest = base.drop_front(strlen("convert_half")).ltrim("0123456789");
  const char *rnd = "rn";
  if (rest == "" || rest == "_rte") rnd = "rn";
  else if (rest == "_rtz") rnd = "rz";
  else if (rest == "_rtp") rnd = "rp";
  else if (rest == "_rtn") rnd = "rm";
  else return false;
  if (F.arg_size() != 1 || !isHalfish(F.getReturnType()) || lanes(F.getReturnType()) != lanes(F.getArg(0)->getType()))
    return false;
  Type *src = F.getArg(0)->getType()->getScalarType();
  char code = lastTypeCode(args);
  bool isSigned = code == 'c' || code == 'a' || code == 's' || code == 'i' || code == 'l';
  LLVMContext &C = F.getContext();
  Type *i16 = Type::getInt16Ty(C), *i32 = Type::getInt32Ty(C), *half = Type::getHalfTy(C);
  makeBody(F);
  IRBuilder<> B(BasicBlock::Create(C, "entry", &F));
  Value *r = perLane(B, F.getArg(0), F.getReturnType(), [&](Value *x) -> Value * {
    if (src->isHalfTy()) return x;
    std::string ty, cons;
    if (src->isFloatTy()) ty = "f32", cons = "f";
    else if (src->isDoubleTy()) ty = "f64", cons = "d";
    else if (src->isIntegerTy(64)) ty = isSigned ? "s64" : "u64", cons = "l";
    else if (src->isIntegerTy()) {
      x = isSigned ? B.CreateSExt(x, i32) : B.CreateZExt(x, i32);
      ty = isSigned ? "s32" : "u32", cons = "r";
    } else return nullptr;
    auto *asmTy = FunctionType::get(i16, {x->getType()}, false);
    InlineAsm *ia = InlineAsm::get(asmTy, std::string("cvt.") + rnd + ".f16." + ty + " $0, $1;", "=h," + cons, false);
    return B.CreateBitCast(B.CreateCall(asmTy, ia, {x}), half);
  });
  if (!r) return false;
  B.CreateRet(r);
  return true;
}

// The float counterpart of F (same name, half arguments as floats), declared in M.
FunctionCallee floatCounterpart(Function &F, StringRef base, StringRef args, Type *ret) {
  std::vector<Type *> ps;
  for (Type *p : F.getFunctionType()->params()) ps.push_back(toFloat(p));
  auto *FT = FunctionType::get(ret, ps, false);
  return F.getParent()->getOrInsertFunction(mangle(base, replaceHalf(args, "f")), FT);
}

// The generic case: call the float counterpart, converting half arguments and the result.
bool defineViaFloat(Function &F, StringRef base, StringRef args) {
  Type *ret = F.getReturnType();
  LLVMContext &C = F.getContext();
  Type *fret = toFloat(ret);
  bool relational = isRelational(base);
  // Relational functions of half vectors return shortn; of float vectors intn.
  if (relational && ret->isVectorTy() && ret->getScalarType()->isIntegerTy(16))
    fret = FixedVectorType::get(Type::getInt32Ty(C), lanes(ret));
  FunctionCallee callee = floatCounterpart(F, base, args, fret);
  makeBody(F);
  IRBuilder<> B(BasicBlock::Create(C, "entry", &F));
  std::vector<Value *> as;
  for (Argument &a : F.args()) as.push_back(isHalfish(a.getType()) ? B.CreateFPExt(&a, toFloat(a.getType())) : &a);
  Value *r = B.CreateCall(callee, as);
  if (ret->isVoidTy()) {
    B.CreateRetVoid();
    return true;
  }
  if (isHalfish(ret)) r = B.CreateFPTrunc(r, ret);
  else if (r->getType() != ret) r = B.CreateTrunc(r, ret);
  B.CreateRet(r);
  return true;
}

// signbit and isnormal read the half's own bits: through float a subnormal half is a normal
// float (isnormal said 1 for 0x0080) and a NaN may lose its sign (cvt gives the canonical NaN:
// signbit(-nan) said 0), the CTS's math_brute_force. Scalars return int 1/0, vectors short -1/0.
bool defineOnBits(Function &F, StringRef base) {
  if (F.arg_size() != 1 || !isHalfish(F.getArg(0)->getType())) return false;
  LLVMContext &C = F.getContext();
  Type *T = F.getArg(0)->getType();
  Type *i16 = Type::getInt16Ty(C);
  Type *IT = T->isVectorTy() ? (Type *)FixedVectorType::get(i16, lanes(T)) : i16;
  auto k = [&](uint64_t v) { return ConstantInt::get(IT, v); };
  makeBody(F);
  IRBuilder<> B(BasicBlock::Create(C, "entry", &F));
  Value *bits = B.CreateBitCast(F.getArg(0), IT);
  Value *test;
  if (base == "signbit") {
    test = B.CreateICmpSLT(bits, Constant::getNullValue(IT));
  } else {
    Value *shifted = B.CreateLShr(bits, k(10));
    Value *exp = B.CreateAnd(shifted, k(0x1f));
    Value *notZero = B.CreateICmpNE(exp, k(0));
    Value *notMax = B.CreateICmpNE(exp, k(0x1f));
    test = B.CreateAnd(notZero, notMax);
  }
  Type *ret = F.getReturnType();
  Value *r = ret->isVectorTy() ? B.CreateSExt(test, ret) : B.CreateZExt(test, ret);
  B.CreateRet(r);
  return true;
}

// modf, fract and sincos with a half out-pointer: the float form with a private temporary.
bool defineWithHalfOut(Function &F, StringRef base, StringRef args) {
  if (F.arg_size() != 2 || !F.getArg(1)->getType()->isPointerTy() || !isHalfish(F.getArg(0)->getType())) return false;
  LLVMContext &C = F.getContext();
  Type *T = F.getArg(0)->getType();
  Type *FTy = toFloat(T);
  // The float form taking a private pointer: _Z<n><base><T>P<T or S_>.
  std::string tf = replaceHalf(args.substr(0, args.find('P')), "f");
  std::string name = mangle(base, tf + "P" + (T->isVectorTy() ? "S_" : "f"));
  Type *ptr = PointerType::get(C, 0);
  FunctionCallee callee = F.getParent()->getOrInsertFunction(name, FunctionType::get(FTy, {FTy, ptr}, false));
  makeBody(F);
  IRBuilder<> B(BasicBlock::Create(C, "entry", &F));
  Value *tmp = B.CreateAlloca(FTy);
  Value *r = B.CreateCall(callee, {B.CreateFPExt(F.getArg(0), FTy), tmp});
  B.CreateStore(B.CreateFPTrunc(B.CreateLoad(FTy, tmp), T), F.getArg(1));
  Value *h = B.CreateFPTrunc(r, T);
  if (base == "fract") {
    // min(result, 0x1.ffcp-1): fract is below 1, and x - floor(x) rounded to half may be 1.
    Value *below1 = ConstantFP::get(T, APFloat(APFloat::IEEEhalf(), APInt(16, 0x3BFF)));
    h = B.CreateSelect(B.CreateFCmpOGT(h, below1), below1, h);
  }
  B.CreateRet(h);
  return true;
}

// nextafter on the bits: one half ulp from x towards y.
bool defineNextafter(Function &F) {
  if (F.arg_size() != 2 || !isHalfish(F.getReturnType())) return false;
  LLVMContext &C = F.getContext();
  Type *T = F.getReturnType();
  Type *I = T->isVectorTy() ? static_cast<Type *>(FixedVectorType::get(Type::getInt16Ty(C), lanes(T)))
                            : Type::getInt16Ty(C);
  makeBody(F);
  IRBuilder<> B(BasicBlock::Create(C, "entry", &F));
  Value *x = F.getArg(0), *y = F.getArg(1);
  Value *xi = B.CreateBitCast(x, I), *yi = B.CreateBitCast(y, I);
  auto c16 = [&](unsigned v) { return ConstantInt::get(I, v); };
  // x == 0: the smallest subnormal with y's sign; else away from or towards zero by one.
  Value *xzero = B.CreateFCmpOEQ(x, ConstantFP::get(T, 0.0));
  Value *tiny = B.CreateOr(B.CreateAnd(yi, c16(0x8000)), c16(1));
  Value *up = B.CreateFCmpOLT(x, y);  // move towards +inf
  Value *xneg = B.CreateICmpSLT(xi, c16(0));
  // For x > 0 moving up, or x < 0 moving down: the magnitude grows (bits + 1); else - 1.
  Value *grow = B.CreateXor(up, xneg);
  Value *bigger = B.CreateAdd(xi, c16(1));
  Value *smaller = B.CreateSub(xi, c16(1));
  Value *step = B.CreateSelect(grow, bigger, smaller);
  Value *r = B.CreateSelect(xzero, tiny, step);
  Value *res = B.CreateBitCast(r, T);
  // x == y: y; either NaN: x + y (a NaN).
  Value *same = B.CreateFCmpOEQ(x, y);
  Value *nan = B.CreateFCmpUNO(x, y);
  res = B.CreateSelect(same, y, res);
  res = B.CreateSelect(nan, B.CreateFAdd(x, y), res);
  B.CreateRet(res);
  return true;
}

// select(a, b, c): c's most significant bit per lane for vectors, c != 0 for scalars.
bool defineSelect(Function &F) {
  if (F.arg_size() != 3 || !isHalfish(F.getReturnType())) return false;
  makeBody(F);
  IRBuilder<> B(BasicBlock::Create(F.getContext(), "entry", &F));
  Value *c = F.getArg(2);
  Value *zero = Constant::getNullValue(c->getType());
  Value *take = F.getReturnType()->isVectorTy() ? B.CreateICmpSLT(c, zero) : B.CreateICmpNE(c, zero);
  B.CreateRet(B.CreateSelect(take, F.getArg(1), F.getArg(0)));
  return true;
}

// bitselect(a, b, c) = (a & ~c) | (b & c) on the bits.
bool defineBitselect(Function &F) {
  if (F.arg_size() != 3 || !isHalfish(F.getReturnType())) return false;
  LLVMContext &C = F.getContext();
  Type *T = F.getReturnType();
  Type *I = T->isVectorTy() ? static_cast<Type *>(FixedVectorType::get(Type::getInt16Ty(C), lanes(T)))
                            : Type::getInt16Ty(C);
  makeBody(F);
  IRBuilder<> B(BasicBlock::Create(C, "entry", &F));
  Value *a = B.CreateBitCast(F.getArg(0), I);
  Value *b = B.CreateBitCast(F.getArg(1), I);
  Value *c = B.CreateBitCast(F.getArg(2), I);
  Value *fromA = B.CreateAnd(a, B.CreateNot(c));
  Value *fromB = B.CreateAnd(b, c);
  Value *r = B.CreateOr(fromA, fromB);
  B.CreateRet(B.CreateBitCast(r, T));
  return true;
}

// fma and mad: one rounding. From sm_53 on llvm.fma.f16 (PTX fma.rn.f16). Before, NVPTX would
// compute it as an f32 fma rounded to half: two roundings. There the fma is done in double,
// rounded to odd (truncated, its last bit set when inexact: fma.rz.f64, and fma.rm.f64 !=
// fma.rp.f64), then rounded to half once (cvt.rn.f16.f64): with 53 >= 11 + 2 bits, rounding to
// odd first gives the correctly rounded result (Boldo and Melquiond). Halves never make a
// double fma overflow or go subnormal.
bool defineFma(Function &F, unsigned sm) {
  if (F.arg_size() != 3 || !isHalfish(F.getReturnType())) return false;
  LLVMContext &C = F.getContext();
  Type *T = F.getReturnType();
  makeBody(F);
  IRBuilder<> B(BasicBlock::Create(C, "entry", &F));
  if (sm >= 53) {
    Function *fma = Intrinsic::getDeclaration(F.getParent(), Intrinsic::fma, {T});
    B.CreateRet(B.CreateCall(fma, {F.getArg(0), F.getArg(1), F.getArg(2)}));
    return true;
  }
  Type *dbl = Type::getDoubleTy(C), *i64 = Type::getInt64Ty(C);
  auto *asmTy = FunctionType::get(dbl, {dbl, dbl, dbl}, false);
  auto fmaIn = [&](const char *rnd, Value *a, Value *b, Value *c) {
    InlineAsm *ia = InlineAsm::get(asmTy, std::string("fma.") + rnd + ".f64 $0, $1, $2, $3;", "=d,d,d,d", false);
    return B.CreateCall(asmTy, ia, {a, b, c});
  };
  std::vector<Value *> args = {F.getArg(0), F.getArg(1), F.getArg(2)};
  Value *out = PoisonValue::get(T);
  for (unsigned i = 0; i < lanes(T); i++) {
    Value *x[3];
    for (unsigned j = 0; j < 3; j++) {
      Value *lane = T->isVectorTy() ? B.CreateExtractElement(args[j], i) : args[j];
      x[j] = B.CreateFPExt(lane, dbl);
    }
    Value *rz = fmaIn("rz", x[0], x[1], x[2]);
    Value *rm = fmaIn("rm", x[0], x[1], x[2]);
    Value *rp = fmaIn("rp", x[0], x[1], x[2]);
    Value *inexact = B.CreateFCmpONE(rm, rp);
    Value *bits = B.CreateBitCast(rz, i64);
    Value *odd = B.CreateOr(bits, B.CreateZExt(inexact, i64));
    Value *h = B.CreateFPTrunc(B.CreateBitCast(odd, dbl), T->getScalarType());
    if (!T->isVectorTy()) {
      B.CreateRet(h);
      return true;
    }
    out = B.CreateInsertElement(out, h, i);
  }
  B.CreateRet(out);
  return true;
}

// nan(ushortn): a quiet NaN carrying the code's low 9 bits.
bool defineNan(Function &F) {
  if (F.arg_size() != 1 || !isHalfish(F.getReturnType())) return false;
  Type *T = F.getReturnType();
  Value *code = F.getArg(0);
  if (code->getType()->getScalarSizeInBits() != 16) return false;
  makeBody(F);
  IRBuilder<> B(BasicBlock::Create(F.getContext(), "entry", &F));
  Value *bits = B.CreateOr(B.CreateAnd(code, ConstantInt::get(code->getType(), 0x1FF)), ConstantInt::get(code->getType(), 0x7E00));
  B.CreateRet(B.CreateBitCast(bits, T));
  return true;
}

// vloadN(offset, p) / vstoreN(data, offset, p) of halfN: element by element (p need only be
// half-aligned).
bool defineVloadVstore(Function &F, bool load, unsigned n) {
  LLVMContext &C = F.getContext();
  Type *half = Type::getHalfTy(C);
  Type *vec = FixedVectorType::get(half, n);
  if (load ? (F.arg_size() != 2 || F.getReturnType() != vec) : (F.arg_size() != 3 || F.getArg(0)->getType() != vec))
    return false;
  makeBody(F);
  IRBuilder<> B(BasicBlock::Create(C, "entry", &F));
  Value *off = F.getArg(load ? 0 : 1), *p = F.getArg(load ? 1 : 2);
  Value *first = B.CreateMul(off, ConstantInt::get(off->getType(), n));
  Value *r = PoisonValue::get(vec);
  for (unsigned i = 0; i < n; i++) {
    Value *q = B.CreateGEP(half, p, B.CreateAdd(first, ConstantInt::get(off->getType(), i)));
    if (load) r = B.CreateInsertElement(r, B.CreateAlignedLoad(half, q, Align(2)), i);
    else B.CreateAlignedStore(B.CreateExtractElement(F.getArg(0), i), q, Align(2));
  }
  if (load) B.CreateRet(r);
  else B.CreateRetVoid();
  return true;
}

// shuffle(x, mask) / shuffle2(x, y, mask): lane i is lane mask[i] mod (lanes of x [+ y]).
bool defineShuffle(Function &F, bool two) {
  if (F.arg_size() != (two ? 3u : 2u) || !isHalfish(F.getReturnType())) return false;
  Type *T = F.getReturnType();
  Value *mask = F.getArg(two ? 2 : 1);
  unsigned m = lanes(F.getArg(0)->getType());
  makeBody(F);
  IRBuilder<> B(BasicBlock::Create(F.getContext(), "entry", &F));
  Value *r = PoisonValue::get(T);
  for (unsigned i = 0; i < lanes(T); i++) {
    Value *k = B.CreateURem(B.CreateExtractElement(mask, i), ConstantInt::get(mask->getType()->getScalarType(), two ? 2 * m : m));
    Value *fromX = B.CreateExtractElement(F.getArg(0), k);
    Value *v = fromX;
    if (two) {
      Value *kk = B.CreateSub(k, ConstantInt::get(k->getType(), m));
      Value *inY = B.CreateICmpUGE(k, ConstantInt::get(k->getType(), m));
      Value *fromY = B.CreateExtractElement(F.getArg(1), B.CreateSelect(inY, kk, k));
      v = B.CreateSelect(inY, fromY, fromX);
    }
    r = B.CreateInsertElement(r, v, i);
  }
  B.CreateRet(r);
  return true;
}

// async_work_group_(strided_)copy, prefetch: the ushort forms move the same bits.
bool defineViaUshort(Function &F, StringRef base, StringRef args) {
  FunctionCallee callee = F.getParent()->getOrInsertFunction(mangle(base, replaceHalf(args, "t")), F.getFunctionType());
  makeBody(F);
  IRBuilder<> B(BasicBlock::Create(F.getContext(), "entry", &F));
  std::vector<Value *> as;
  for (Argument &a : F.args()) as.push_back(&a);
  Value *r = B.CreateCall(callee, as);
  if (F.getReturnType()->isVoidTy()) B.CreateRetVoid();
  else B.CreateRet(r);
  return true;
}

// read_imageh: read_imagef rounded; write_imageh: write_imagef of the colour extended.
bool defineImage(Function &F, StringRef base, StringRef args, bool read) {
  std::string fname = read ? "read_imagef" : "write_imagef";
  makeBody(F);
  IRBuilder<> B(BasicBlock::Create(F.getContext(), "entry", &F));
  std::vector<Type *> ps;
  std::vector<Value *> as;
  for (Argument &a : F.args()) {
    ps.push_back(toFloat(a.getType()));
    as.push_back(isHalfish(a.getType()) ? B.CreateFPExt(&a, toFloat(a.getType())) : &a);
  }
  Type *ret = toFloat(F.getReturnType());
  FunctionCallee callee =
      F.getParent()->getOrInsertFunction(mangle(fname, replaceHalf(args, "f")), FunctionType::get(ret, ps, false));
  Value *r = B.CreateCall(callee, as);
  if (read) B.CreateRet(B.CreateFPTrunc(r, F.getReturnType()));
  else B.CreateRetVoid();
  (void)base;
  return true;
}

bool defineHalfBuiltin(Function &F, unsigned sm) {
  StringRef name = F.getName();
  if (!name.consume_front("_Z")) return false;
  unsigned len = 0;
  if (name.consumeInteger(10, len) || name.size() < len) return false;
  StringRef base = name.substr(0, len);
  StringRef args = name.substr(len);
  bool halfSig = isHalfish(F.getReturnType()) || args.contains("Dh");
  for (Type *p : F.getFunctionType()->params()) halfSig |= isHalfish(p);
  if (!halfSig) return false;
  if (base.starts_with("convert_half")) return defineConvertToHalf(F, base, args);
  if (base == "read_imageh") return defineImage(F, base, args, true);
  if (base == "write_imageh") return defineImage(F, base, args, false);
  if (base == "fma" || base == "mad") return defineFma(F, sm);
  if (base == "nextafter") return defineNextafter(F);
  if (base == "select") return defineSelect(F);
  if (base == "bitselect") return defineBitselect(F);
  if (base == "nan") return defineNan(F);
  if (base == "shuffle") return defineShuffle(F, false);
  if (base == "shuffle2") return defineShuffle(F, true);
  if (base == "async_work_group_copy" || base == "async_work_group_strided_copy" || base == "prefetch")
    return defineViaUshort(F, base, args);
  if (base == "modf" || base == "fract" || base == "sincos") return defineWithHalfOut(F, base, args);
  for (unsigned n : {2u, 3u, 4u, 8u, 16u}) {
    if (base == "vload" + std::to_string(n)) return defineVloadVstore(F, true, n);
    if (base == "vstore" + std::to_string(n)) return defineVloadVstore(F, false, n);
  }
  // vload_half*/vstore_half* come from libclc (never declarations here).
  if ((base == "signbit" || base == "isnormal") && defineOnBits(F, base)) return true;
  if (viaFloat(base) || isRelational(base)) return defineViaFloat(F, base, args);
  return false;
}

}  // namespace

extern "C" {

// Defines the half built-ins the module declares (see above). Anything else stays declared:
// finishLink reports what is still undefined after libclc.
int pg_define_half(LLVMModuleRef mref, int sm) {
  Module &M = *reinterpret_cast<Module *>(mref);
  std::vector<Function *> todo;
  for (Function &F : M)
    if (F.isDeclaration() && !F.isIntrinsic() && !F.use_empty()) todo.push_back(&F);
  int defined = 0;
  for (Function *F : todo) defined += defineHalfBuiltin(*F, static_cast<unsigned>(sm));
  return defined;
}

}  // extern "C"

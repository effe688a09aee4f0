// The OpenCL built-in names of an imported SPIR-V module, mangled as clang mangles them for
// nvptx (the names libclc and ptxgen's own libraries define).
//
// Address spaces are part of a mangled pointer type (`PU3AS1f`: pointer to global float), and
// clang spells them with the target's numbers: SPIR's constant is AS2 and its generic AS4, while
// nvptx's constant is AS4 and its generic is 0, spelled like private, with no qualifier (nvptx
// private and generic pointers are the same generic pointers). So `vload4(size_t, constant
// float *)` is `_Z6vload4mPU3AS2Kf` in the translator's output and `_Z6vload4mPU3AS4Kf` in
// libclc, and a generic `float *` is `PU3AS4f` there and `Pf` here.
//
// Dropping a qualifier also drops a substitution candidate (Itanium mangling numbers every
// qualified type, pointer, vector and named type it has written, and later parameters refer
// back to them as S_, S0_, ...), so the name is parsed into types and written again with the
// substitutions renumbered, rather than edited as text.
#include "bridge.h"

using namespace llvm;

namespace {

struct Ty {
  enum Kind { Builtin, Vector, Pointer, Qualified, VendorType, Named } kind;
  std::string text;  // Builtin: the code; Vector: the count; Qualified: the address space
                     // ("" none) then the CV letters in `cv`; VendorType/Named: the name
  std::string cv;
  std::shared_ptr<Ty> inner;
};
using TyP = std::shared_ptr<Ty>;

// Reads one <type> of the parameter list, keeping Itanium's substitution table as it goes.
class Parser {
public:
  explicit Parser(StringRef s) : s(s) {}
  bool atEnd() const { return s.empty(); }

  TyP type() {
    if (s.empty()) return nullptr;
    char c = s.front();
    if (c == 'S') return substitution();
    if (c == 'P') {
      s = s.drop_front();
      TyP in = type();
      if (!in) return nullptr;
      return candidate(std::make_shared<Ty>(Ty{Ty::Pointer, "", "", in}));
    }
    if (c == 'U' || c == 'r' || c == 'V' || c == 'K') return qualified();
    if (s.starts_with("Dv")) {
      s = s.drop_front(2);
      std::string n;
      while (!s.empty() && isDigit(s.front())) n += s.front(), s = s.drop_front();
      if (n.empty() || !s.consume_front("_")) return nullptr;
      TyP in = type();
      if (!in) return nullptr;
      return candidate(std::make_shared<Ty>(Ty{Ty::Vector, n, "", in}));
    }
    if (c == 'D') {
      if (s.size() < 2) return nullptr;
      std::string code = s.take_front(2).str();
      s = s.drop_front(2);
      return std::make_shared<Ty>(Ty{Ty::Builtin, code, "", nullptr});
    }
    if (isDigit(c)) {
      std::string name;
      if (!sourceName(name)) return nullptr;
      return candidate(std::make_shared<Ty>(Ty{Ty::Named, name, "", nullptr}));
    }
    if (StringRef("vwbcahstijlmxynofdegz").contains(c)) {
      s = s.drop_front();
      return std::make_shared<Ty>(Ty{Ty::Builtin, std::string(1, c), "", nullptr});
    }
    return nullptr;
  }

private:
  StringRef s;
  std::vector<TyP> subs;

  TyP candidate(TyP t) {
    subs.push_back(t);
    return t;
  }

  bool sourceName(std::string &out) {
    unsigned n = 0;
    size_t i = 0;
    while (i < s.size() && isDigit(s[i])) n = n * 10 + (s[i++] - '0');
    if (i == 0 || s.size() < i + n) return false;
    out = s.substr(i, n).str();
    s = s.drop_front(i + n);
    return true;
  }

  TyP substitution() {
    s = s.drop_front();  // 'S'
    size_t idx = 0;
    if (!s.consume_front("_")) {
      size_t v = 0;
      bool any = false;
      while (!s.empty() && s.front() != '_') {
        char c = s.front();
        if (isDigit(c)) v = v * 36 + (c - '0');
        else if (c >= 'A' && c <= 'Z') v = v * 36 + (c - 'A' + 10);
        else return nullptr;  // St, Sa...: not in OpenCL built-ins
        any = true;
        s = s.drop_front();
      }
      if (!any || !s.consume_front("_")) return nullptr;
      idx = v + 1;
    }
    return idx < subs.size() ? subs[idx] : nullptr;
  }

  // Address-space and CV qualifiers of one type (one candidate), or a vendor type such as
  // U7_Atomic i (a candidate of its own).
  TyP qualified() {
    std::string as, cv;
    while (!s.empty()) {
      if (s.front() == 'U') {
        StringRef save = s;
        s = s.drop_front();
        std::string name;
        if (!sourceName(name)) return nullptr;
        if (StringRef(name).starts_with("AS") || StringRef(name).starts_with("CL")) {
          as = name;
          continue;
        }
        if (!as.empty() || !cv.empty()) {
          // A vendor type after qualifiers: the qualifiers apply to it.
          s = save;
          break;
        }
        TyP in = type();
        if (!in) return nullptr;
        return candidate(std::make_shared<Ty>(Ty{Ty::VendorType, name, "", in}));
      }
      if (s.front() == 'r' || s.front() == 'V' || s.front() == 'K') {
        cv += s.front();
        s = s.drop_front();
        continue;
      }
      break;
    }
    TyP in = type();
    if (!in) return nullptr;
    return candidate(std::make_shared<Ty>(Ty{Ty::Qualified, as, cv, in}));
  }
};

// SPIR's address-space qualifier -> nvptx's ("" for none).
std::string nvptxQualifier(const std::string &as) {
  if (as == "AS2") return "AS4";  // constant
  if (as == "AS4") return "";     // generic: nvptx's 0, unqualified
  return as;
}

// Writes types, substituting what was written before (the new table).
class Writer {
public:
  std::string out;

  void type(const TyP &t) {
    if (t->kind == Ty::Builtin) {
      out += t->text;
      return;
    }
    std::string plain = spell(t);
    if (t->kind == Ty::Qualified && plain == spell(t->inner)) {
      type(t->inner);  // no qualifier left: the inner type itself
      return;
    }
    auto it = std::find(table.begin(), table.end(), plain);
    if (it != table.end()) {
      size_t i = it - table.begin();
      out += i == 0 ? std::string("S_") : "S" + base36(i - 1) + "_";
      return;
    }
    switch (t->kind) {
    case Ty::Pointer: out += "P"; type(t->inner); break;
    case Ty::Vector: out += "Dv" + t->text + "_"; type(t->inner); break;
    case Ty::Named: out += std::to_string(t->text.size()) + t->text; break;
    case Ty::VendorType: out += "U" + std::to_string(t->text.size()) + t->text; type(t->inner); break;
    case Ty::Qualified: {
      std::string q = nvptxQualifier(t->text);
      if (!q.empty()) out += "U" + std::to_string(q.size()) + q;
      out += t->cv;
      type(t->inner);
      break;
    }
    case Ty::Builtin: break;
    }
    table.push_back(plain);
  }

private:
  std::vector<std::string> table;

  static std::string base36(size_t v) {
    std::string r;
    do {
      unsigned d = v % 36;
      r.insert(r.begin(), (char)(d < 10 ? '0' + d : 'A' + d - 10));
      v /= 36;
    } while (v);
    return r;
  }

  // The type's full spelling after renaming, without substitutions (its identity).
  static std::string spell(const TyP &t) {
    switch (t->kind) {
    case Ty::Builtin: return t->text;
    case Ty::Pointer: return "P" + spell(t->inner);
    case Ty::Vector: return "Dv" + t->text + "_" + spell(t->inner);
    case Ty::Named: return std::to_string(t->text.size()) + t->text;
    case Ty::VendorType: return "U" + std::to_string(t->text.size()) + t->text + spell(t->inner);
    case Ty::Qualified: {
      std::string q = nvptxQualifier(t->text);
      return (q.empty() ? "" : "U" + std::to_string(q.size()) + q) + t->cv + spell(t->inner);
    }
    }
    return "";
  }
};

} // namespace

// `name` as clang would mangle it for nvptx, or "" when it is the same or not a mangled
// OpenCL built-in name this understands.
std::string nvptxMangledName(StringRef name) {
  if (!name.consume_front("_Z")) return "";
  size_t i = 0;
  unsigned n = 0;
  while (i < name.size() && isDigit(name[i])) n = n * 10 + (name[i++] - '0');
  if (i == 0 || name.size() < i + n) return "";
  std::string head = "_Z" + name.take_front(i + n).str();
  Parser p(name.drop_front(i + n));
  std::vector<TyP> params;
  while (!p.atEnd()) {
    TyP t = p.type();
    if (!t) return "";
    params.push_back(t);
  }
  Writer w;
  for (const TyP &t : params) w.type(t);
  std::string renamed = head + w.out;
  return renamed == "_Z" + name.str() ? "" : renamed;
}

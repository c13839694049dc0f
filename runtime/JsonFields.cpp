#include "JsonFields.h"

#include <algorithm>
#include <cmath>

#include "UserInput.h"

namespace mslsim {

namespace {
const nlohmann::json kEmptyObject = nlohmann::json::object();
}

std::optional<std::string> nearestName(const std::string& word, const std::vector<std::string>& known) {
  std::optional<std::string> best;
  size_t bestDistance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const std::string& k : known) {
    // Levenshtein distance, one row at a time.
    std::vector<size_t> row(k.size() + 1);
    for (size_t j = 0; j <= k.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= word.size(); ++i) {
      size_t diagonal = row[0];
      row[0] = i;
      for (size_t j = 1; j <= k.size(); ++j) {
        size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (word[i - 1] == k[j - 1] ? 0 : 1)});
        diagonal = up;
      }
    }
    if (row[k.size()] < bestDistance) {
      bestDistance = row[k.size()];
      best = k;
    }
  }
  return best;
}

JsonFields::JsonFields(const nlohmann::json& object, std::string where, const std::vector<std::string>& known)
    : object_(object), where_(std::move(where)) {
  if (!object_.is_object()) throw Error(where_ + " must be a JSON object, not " + typeName(object_));
  for (auto& [key, value] : object_.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string message = where_ + ": unknown field '" + key + "'";
    if (auto near = nearestName(key, known)) message += " (did you mean '" + *near + "'?)";
    else {
      message += " (known fields:";
      for (auto& k : known) message += " " + k;
      message += ")";
    }
    throw Error(message);
  }
}

JsonFields::JsonFields(const nlohmann::json& object, std::string where) : object_(object), where_(std::move(where)) {
  if (!object_.is_object()) throw Error(where_ + " must be a JSON object, not " + typeName(object_));
}

std::string JsonFields::typeName(const nlohmann::json& value) {
  if (value.is_null()) return "null";
  if (value.is_boolean()) return "a boolean";
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_array()) return "a list";
  return "an object";
}

std::string JsonFields::name(const std::string& key) const { return where_ + ": '" + key + "'"; }

bool JsonFields::has(const std::string& key) const { return object_.contains(key); }

const nlohmann::json& JsonFields::raw(const std::string& key) const {
  if (!object_.contains(key)) throw Error(name(key) + " is missing");
  return object_.at(key);
}

std::string JsonFields::asString(const nlohmann::json& value, const std::string& name) {
  if (!value.is_string()) throw Error(name + " must be a string, not " + typeName(value));
  return value.get<std::string>();
}

std::string JsonFields::string(const std::string& key, std::optional<std::string> fallback) const {
  if (!has(key) && fallback) return *fallback;
  return asString(raw(key), name(key));
}

bool JsonFields::boolean(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  const nlohmann::json& v = raw(key);
  if (!v.is_boolean()) throw Error(name(key) + " must be true or false, not " + typeName(v));
  return v.get<bool>();
}

double JsonFields::number(const std::string& key, std::optional<double> fallback) const {
  if (!has(key) && fallback) return *fallback;
  const nlohmann::json& v = raw(key);
  if (!v.is_number()) throw Error(name(key) + " must be a number, not " + typeName(v));
  return v.get<double>();
}

uint64_t JsonFields::asInteger(const nlohmann::json& value, const std::string& name, uint64_t max) {
  bool ok = value.is_number_unsigned() ? value.get<uint64_t>() <= max
            : value.is_number_integer() ? value.get<int64_t>() >= 0 && uint64_t(value.get<int64_t>()) <= max
                                        : false;
  if (!ok)
    throw Error(name + " must be an integer from 0 to " + std::to_string(max) + ", not " +
                (value.is_number() ? value.dump() : typeName(value)));
  return value.is_number_unsigned() ? value.get<uint64_t>() : uint64_t(value.get<int64_t>());
}

uint64_t JsonFields::integer(const std::string& key, uint64_t max, std::optional<uint64_t> fallback) const {
  if (!has(key) && fallback) return *fallback;
  return asInteger(raw(key), name(key), max);
}

JsonFields JsonFields::object(const std::string& key, const std::vector<std::string>& known) const {
  return JsonFields(has(key) ? object_.at(key) : kEmptyObject, name(key), known);
}

JsonFields JsonFields::object(const std::string& key) const {
  return JsonFields(has(key) ? object_.at(key) : kEmptyObject, name(key));
}

nlohmann::json parseJsonFile(const std::string& path) {
  std::string text = readTextFile(path);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.what() is "[json.exception.parse_error.101] parse error at line 2, column 1: syntax
    // error while parsing ..."; the user needs the position and the reason.
    std::string what = e.what();
    size_t at = what.find("at line");
    throw Error(path + ": invalid JSON " + (at == std::string::npos ? what : what.substr(at)));
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond double's range (1e400): the parser throws out_of_range.406, "[json.exception.
    // out_of_range.406] number overflow parsing '1e400'", with no position.
    std::string what = e.what();
    size_t end = what.find("] ");
    throw Error(path + ": invalid JSON: " + (end == std::string::npos ? what : what.substr(end + 2)));
  }
}

}  // namespace mslsim

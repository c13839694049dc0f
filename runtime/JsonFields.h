// Reading the JSON files users write (SPEC.json, case.json) with errors a user can act on: every
// message names the file and the field ("case.json: 'grid'[0] must be an integer from 0 to
// 4294967295, not -1"), and a field the format does not know is an error that suggests the
// nearest known one ("unknown field 'init_vlaue' (did you mean 'init_value'?)"), so a misspelt
// field is never ignored. Written by hand: Debian packages no C++ JSON Schema validator, and a
// schema would not give the suggestions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <mslsim/types.h>

namespace mslsim {

class JsonFields {
 public:
  // `where` names the object in messages ("case.json", "spec.json: 'inputs'[1]"); `known` lists
  // its fields: any other is refused.
  JsonFields(const nlohmann::json& object, std::string where, const std::vector<std::string>& known);
  // An object whose keys are data (buffer indices), not field names.
  JsonFields(const nlohmann::json& object, std::string where);

  bool has(const std::string& key) const;
  const nlohmann::json& raw(const std::string& key) const;  // the field, which must be present
  // Required when no fallback is given.
  std::string string(const std::string& key, std::optional<std::string> fallback = std::nullopt) const;
  bool boolean(const std::string& key, bool fallback) const;
  double number(const std::string& key, std::optional<double> fallback = std::nullopt) const;
  uint64_t integer(const std::string& key, uint64_t max, std::optional<uint64_t> fallback = std::nullopt) const;
  // An object field (the object itself if given, else empty), read with its own known fields.
  JsonFields object(const std::string& key, const std::vector<std::string>& known) const;
  JsonFields object(const std::string& key) const;  // keys are data
  // A field's name in messages: "case.json: 'grid'".
  std::string name(const std::string& key) const;
  const std::string& where() const { return where_; }
  const nlohmann::json& json() const { return object_; }

  // Checks of values inside fields, with the same wording.
  static uint64_t asInteger(const nlohmann::json& value, const std::string& name, uint64_t max);
  static std::string asString(const nlohmann::json& value, const std::string& name);
  static std::string typeName(const nlohmann::json& value);

 private:
  const nlohmann::json& object_;
  std::string where_;
};

// The entry of `known` nearest to `word` by edit distance, if close enough to be a likely typo.
std::optional<std::string> nearestName(const std::string& word, const std::vector<std::string>& known);

// Parses a JSON file the user wrote: "PATH: invalid JSON at line L, column C: ...".
nlohmann::json parseJsonFile(const std::string& path);

}  // namespace mslsim

// A C++ program that uses an installed DRAForge through pkg-config and the C ABI:
//   c++ -std=c++17 main.cpp $(pkg-config --cflags --libs draforge) -o convert
//   ./convert < claim-v1beta1.yaml      # prints the objects converted to resource.k8s.io/v1
#include <iostream>
#include <iterator>
#include <memory>
#include <string>

#include "draforge/draforge.h"

int main() {
  if (std::string(draforge_version()) != DRAFORGE_VERSION_STRING) {
    std::cerr << "header " << DRAFORGE_VERSION_STRING << " but library " << draforge_version() << "\n";
    return 3;
  }
  const std::string input((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  draforge_objects* raw = nullptr;
  draforge_error* error = nullptr;
  if (draforge_objects_parse(&raw, input.data(), input.size(), &error) != DRAFORGE_OK) {
    std::cerr << "error: " << draforge_error_message(error) << "\n";
    draforge_error_destroy(error);
    return 2;
  }
  std::unique_ptr<draforge_objects, decltype(&draforge_objects_destroy)> objects(raw, draforge_objects_destroy);
  for (size_t i = 0; i < draforge_objects_count(objects.get()); ++i) {
    draforge_buffer out{};
    const char* version = std::string(draforge_objects_api_version(objects.get(), i)).rfind("resource.k8s.io/", 0) == 0
                              ? "resource.k8s.io/v1"
                              : nullptr;
    if (draforge_objects_encode(&out, objects.get(), i, version, DRAFORGE_FORMAT_YAML, &error) != DRAFORGE_OK) {
      std::cerr << "error: " << draforge_objects_key(objects.get(), i) << ": " << draforge_error_message(error) << "\n";
      draforge_error_destroy(error);
      return 2;
    }
    std::cout << (i ? "---\n" : "") << out.ptr;
    draforge_buffer_dispose(&out);
  }
  return 0;
}

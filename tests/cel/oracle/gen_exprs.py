import itertools
ex=[]
nums=['0','1','-1','2','7','-7','3u','0u','1.5','-2.5','0.0']
for a,b in itertools.product(['1','-7','3u','1.5','0.0'],['2','-1','0','2u','0.5','-0.0']):
    for op in ['<','<=','>','>=','==','!=']:
        ex.append(f'{a} {op} {b}')
for a,b in [('7','2'),('-7','2'),('7','-2'),('7u','2u'),('7.5','2.0'),('9223372036854775807','1'),('-9223372036854775808','1'),('1','0'),('1u','0u'),('0u','1u'),('18446744073709551615u','1u')]:
    for op in ['+','-','*','/','%']:
        if '.' in a and op=='%': continue
        ex.append(f'dyn({a} {op} {b}) == dyn({a} {op} {b})')
ex += [
 '-9223372036854775808 / -1 == 0','-9223372036854775808 % -1 == 0','1.0/0.0 > 1e308','-(1.0/0.0) < 0.0','(0.0/0.0) == (0.0/0.0)','(0.0/0.0) != (0.0/0.0)',
 '"abc" < "abd"','"abc" + "def" == "abcdef"','b"abc" < b"abd"','b"ab" + b"c" == b"abc"','size("héllo") == 5','size(b"h\\xc3\\xa9") == 3','"héllo".size() == 5',
 '[1,2] + [3] == [1,2,3]','[1,2,3][1] == 2','[1,2,3][3] == 1','[1,2,3][-1] == 1','{"a":1,"b":2}["b"] == 2','{"a":1}["c"] == 1','{1:"a", 2u:"b"}[2] == "b"','{1:"a"}[1.0] == "a"','dyn([1,2])[1u] == 2','dyn([1,2])[1.0] == 2','dyn([1,2])[1.5] == 2',
 '1 in [1,2,3]','4 in [1,2,3]','"a" in {"a":1}','"b" in {"a":1}','1 in [1u, 2.0]','2 in dyn([1u, 2.0])','1 in {1u: true}',
 'size([1,2,3]) == 3','size({"a":1}) == 1','[].size() == 0','{}.size() == 0',
 'int(1.9) == 1','int(-1.9) == -1','int(1u) == 1','int("123") == 123','int("-5") == -5','int(dyn("x")) == 1','int(dyn(1e19)) == 1','int(dyn(18446744073709551615u)) == 1',
 'uint(1) == 1u','uint(dyn(-1)) == 1u','uint(1.5) == 1u','uint("42") == 42u','uint(dyn("-1")) == 1u',
 'double(1) == 1.0','double(1u) == 1.0','double("1.5") == 1.5','double("1e3") == 1000.0','double(dyn("abc")) == 1.0',
 'string(1) == "1"','string(1u) == "1"','string(-1.5) == "-1.5"','string(true) == "true"','string(b"abc") == "abc"','string(0.1) == "0.1"','string(123456.0) == "123456"','string(1e-5) == "1e-05"','string(1.0) == "1"',
 'bytes("abc") == b"abc"','bool("true")','bool("f") == false','bool(dyn("yes"))','dyn(1) == 1','dyn("a") == "a"',
 'type(1) == int','type(1u) == uint','type(1.0) == double','type("") == string','type(b"") == bytes','type(true) == bool','type(null) == null_type','type([]) == list','type({}) == map','type(int) == type','type(dyn(1)) == int',
 '"hello".contains("ell")','"hello".contains("")','"hello".startsWith("he")','"hello".endsWith("lo")','"hello".startsWith("lo")','"abc".matches("^a.c$")','matches("abc", "b")','"abc".matches("[")',
 'true && true','true && false','false || true','false || false','!true == false','true ? 1 == 1 : false','false ? false : true',
 '1/0 == 1 || true','true || 1/0 == 1','false && 1/0 == 1','1/0 == 1 && false','1/0 == 1 && true','1/0 == 1 || false','(1/0 == 1) ? true : false',
 '[1,2,3].all(x, x > 0)','[1,2,3].all(x, x > 1)','[1,2,3].exists(x, x == 2)','[1,2,3].exists(x, x == 5)','[1,2,3].exists_one(x, x > 1)','[1,2,3].exists_one(x, x == 1)',
 '[1,2,3].map(x, x * x) == [1,4,9]','[1,2,3].map(x, x > 1, x * 10) == [20,30]','[1,2,3].filter(x, x % 2 == 1) == [1,3]','{"a":1,"b":2}.map(k, k) == ["a","b"]','{"a":1,"b":2}.all(k, k != "c")',
 '[0,1].all(x, 1/x > 0)','[0,1].exists(x, 1/x > 0)','[1,0].exists(x, 1/x > 0)','[].all(x, x > 0)','[].exists(x, x > 0)',
 '[1,2].all(i, v, i < v)','[1,2].exists(i, v, v == 2 && i == 1)','{"a":1}.all(k, v, v == 1)','[1,2,3].existsOne(i, v, v == 2)','[1,2].transformList(i, v, v * 2) == [2,4]','[1,2,3].transformList(i, v, v > 1, v) == [2,3]','{"a":1}.transformMap(k, v, v + 1) == {"a": 2}','[1,2].transformMapEntry(i, v, {string(v): i}) == {"1": 0, "2": 1}',
 'cel.bind(x, 1, x + 1) == 2','cel.bind(x, [1,2], x.size() + x[0]) == 3','cel.bind(a, 1, cel.bind(b, a + 1, a + b)) == 3',
 'optional.of(1).hasValue()','optional.none().hasValue()','optional.of(1).value() == 1','optional.none().value() == 1','optional.none().orValue(5) == 5','optional.of(2).or(optional.of(3)).value() == 2','optional.none().or(optional.of(3)).value() == 3','optional.ofNonZeroValue(0).hasValue()','optional.ofNonZeroValue("a").hasValue()',
 '{"a":1}.?a.value() == 1','{"a":1}.?b.hasValue()','{"a":1}[?"a"].orValue(0) == 1','[1,2][?5].hasValue()','[1,2][?1].value() == 2','[?optional.of(1), ?optional.none()] == [1]','{?"a": optional.of(1), ?"b": optional.none()} == {"a": 1}',
 '"abc".charAt(1) == "b"','"abc".charAt(3) == ""','"abc".charAt(4) == ""','"hello".indexOf("l") == 2','"hello".lastIndexOf("l") == 3','"hello".indexOf("l", 3) == 3','"hello".indexOf("z") == -1','"héllo".indexOf("l") == 2',
 '"AbC".lowerAscii() == "abc"','"AbC".upperAscii() == "ABC"','"aaa".replace("a", "b") == "bbb"','"aaa".replace("a", "b", 2) == "bba"','"a,b,c".split(",") == ["a","b","c"]','"a,b,c".split(",", 2) == ["a","b,c"]','"abc".split("") == ["a","b","c"]',
 '"hello".substring(1, 3) == "el"','"hello".substring(3, 1) == ""','"hello".substring(6) == ""','"  hi  ".trim() == "hi"','["a","b"].join() == "ab"','["a","b"].join("-") == "a-b"','strings.quote("a\\"b") == "\\"a\\\\\\"b\\""',
 '[1,2,3].isSorted()','[3,1].isSorted()','["a","b"].isSorted()','[1,2,3].sum() == 6','[1.5,2.5].sum() == 4.0','[].sum() == 0','[3,1,2].min() == 1','[3,1,2].max() == 3','[1,2,1].indexOf(1) == 0','[1,2,1].lastIndexOf(1) == 2','[1,2].indexOf(3) == -1','([] + [1]).min() == 1','dyn([]).min() == 1',
 '"abc123".find("[0-9]+") == "123"','"abc".find("[0-9]+") == ""','"a1b2c3".findAll("[0-9]") == ["1","2","3"]','"a1b2c3".findAll("[0-9]", 2) == ["1","2"]',
 'quantity("1Gi") == quantity("1024Mi")','quantity("1") .isLessThan(quantity("2"))','quantity("1.5").isInteger()','quantity("2").isInteger()','quantity("2k").asInteger() == 2000','quantity("1.5").asApproximateFloat() == 1.5','quantity("-1").sign() == -1','quantity("1").add(1) == quantity("2")','quantity("3").sub(quantity("1")) == quantity("2")','quantity("1").compareTo(quantity("2")) == -1','isQuantity("1Mi")','isQuantity("1MB")','quantity("1MB") == quantity("1")','quantity("1E").add(quantity("1E")).asInteger() == 1',
 'semver("1.2.3").isLessThan(semver("1.3.0"))','semver("1.2.3").compareTo(semver("1.2.3")) == 0','semver("1.2.3-alpha").isLessThan(semver("1.2.3"))','semver("1.2.3").patch() == 3','isSemver("1.2")','isSemver("1.2", true)','isSemver("v1.2.3", true)','semver("v1.2.3") == semver("1.2.3")','semver("01.2.3", true).major() == 1',
 'sets.contains([1,2,3], [2,3])','sets.contains([1], [2])','sets.equivalent([1,2], [2,1,1])','sets.intersects([1,2], [3])',
 '[1, dyn("a")].size() == 2','[1, 2u].size() == 2','{"a": 1, "b": "x"}.size() == 2','1 == 1u','1 == 1.0','dyn(1) == dyn(1u)','dyn(1) == dyn(1.0)','dyn(1) == dyn("1")','[1] == [1u]','dyn([1]) == dyn([1.0])','{"a":1} == {"a":1}','null == null','dyn(null) == 1',
 'x', '1 +', '(1', '[1, 2', '{1: 2', 'a.b.', '"abc', '1 2', 'true ? 1', '1 = 1', 'as == 1', '9223372036854775808 == 1', '18446744073709551616u == 1u', '-9223372036854775808 == -9223372036854775807 - 1',
 'has(x)', 'x.all(1, true)', 'cel.bind(1, 2, 3)', '[1].map(x)', '1.e2', 'in == 1', '"\\q" == ""', 'r"\\q" == "\\\\q"', '"""a b""" == "a b"', "'''x''' == 'x'", 'b"\\xff".size() == 1', '"\\u00e9" == "é"', '"\\101" == "A"', '0x10 == 16', '0x10u == 16u', '1e3 == 1000.0', '.5 == 0.5', '1.5e-3 == 0.0015',
 'size(1)', '"a" + 1 == "a1"', '1 + "a"', '[1].foo()', 'device.nope', 'device.attributes.foo.bar == 1', '{"a":1}.a == 1', 'dyn({"a":1}).a == 1', '1.a',
 '[[1,2],[3]].map(x, x.size()) == [2, 1]', '[1,2,3].map(x, [1,2].map(y, x * y)).size() == 3', 'dyn([1,2]).all(x, x > 0)', 'dyn("abc").all(x, true)',
 '"hello world".matches("o w")', '"x".matches("^x$") && !"xy".matches("^x$")',
]
# DRA cases
ex += [
 'device.driver == "dra.example.com"','device.attributes["dra.example.com"].memory >= 40','device.attributes["dra.example.com"].model == "a100"','device.attributes["dra.example.com"].name','device.attributes["dra.example.com"].version.isGreaterThan(semver("1.0.0"))','device.attributes["dra.example.com"].version == semver("1.2.3")',
 'device.attributes["other.example.com"].name == "other"','device.attributes["dra.example.com"].nope','device.attributes["nope.example.com"].x','device.attributes["nope.example.com"].size() == 0','"model" in device.attributes["dra.example.com"]','"nope" in device.attributes["dra.example.com"]',
 'device.capacity["dra.example.com"].memory.isGreaterThan(quantity("512Mi"))','device.capacity["dra.example.com"].cores == quantity("8")','device.capacity["dra.example.com"].cores.asInteger() == 8','device.capacity.size() == 1','device.attributes.size() == 2','device.attributes["dra.example.com"].size() == 6',
 'device.attributes["dra.example.com"].all(k, k != "")','device.attributes["dra.example.com"].ints.all(x, x > 0)','device.attributes["dra.example.com"].ints.map(x, x * 2).sum() == 12','device.attributes["dra.example.com"].strs.exists(s, s == "b")','device.attributes["dra.example.com"].strs.join(",") == "a,b"',
 'device.attributes["dra.example.com"].ints.includes(3)','device.attributes["dra.example.com"].memory.includes(40)','device.attributes["dra.example.com"].?model.orValue("") == "a100"','device.attributes["dra.example.com"].?zzz.orValue("none") == "none"','has(device.attributes["dra.example.com"].model)','has(device.attributes["dra.example.com"].zzz)',
 'cel.bind(d, device.attributes["dra.example.com"], d.memory > 10 && d.model.startsWith("a"))','device.allowMultipleAllocations','device.allowMultipleAllocations == false','device.attributes["dra.example.com"].model','device.attributes','device.attributes["dra.example.com"].model.upperAscii() == "A100"','device.attributes["dra.example.com"].model.matches("^a[0-9]+$")',
 'device.attributes["dra.example.com"].memory + 1 == 41','device.attributes["dra.example.com"].memory > 39.5','device.attributes["dra.example.com"].memory == 40u',
]
open('exprs.txt','w').write('\n'.join(e.replace('\n','\\n') if False else e for e in ex)+'\n')
print(len(ex))

#include "shape.hpp"

namespace geo {

Shape::Shape(int sides) : sides_(sides) {}

int Shape::area() const { return sides() * 2; }

Shape Shape::operator+(const Shape &o) const
{
	return Shape(sides_ + o.sides());
}

} // namespace geo

int run()
{
	geo::Shape a(3);
	geo::Shape b = a + a;
	auto f = [&] { return b.area(); };
	return f() + geo::twice(a.sides());
}

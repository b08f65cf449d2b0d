#pragma once

namespace geo {

class Shape {
public:
	explicit Shape(int sides);
	virtual ~Shape() = default;
	virtual int area() const;
	int sides() const { return sides_; }
	Shape operator+(const Shape &o) const;

private:
	int sides_;
};

template <typename T>
T twice(T v)
{
	return v + v;
}

} // namespace geo
